// The session's drafts through its actions, with the editor's part played by hand: "Decode again" asks over
// edits, sets the edited text aside and merges the corrections into the new text, a reload shows it,
// restoring brings it back, a cancelled decode gives the text before it back, and storage that refuses the
// text says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestMap, RequestName } from '../../common/protocol';
import { loadDraft } from '../../renderer/src/state/drafts';
import { noticeOf } from '../../renderer/src/state/notices';
import { createSession } from '../../renderer/src/state/session-store';
import type { Transport } from '../../renderer/src/transport/transport';
import { memoryStorage } from '../support/memory-storage';
import { buildSyntheticDecode } from '../support/synthetic-decode';

const { doc } = buildSyntheticDecode();

/**
 * An engine that opens the sample and whose decodes end when the test says (no events: the test types the
 * decode's text into the session as the editor would).
 */
function heldEngine() {
  let requested: (finish: (cancelled: boolean) => void) => void;
  let decoding = new Promise<(cancelled: boolean) => void>((r) => { requested = r; });
  const answers: { [N in RequestName]?: () => RequestMap[N][1] | Promise<RequestMap[N][1]> } = {
    openSample: () => ({ doc, bytes: Buffer.from('page').toString('base64') }),
    decode: () => new Promise((resolve) => requested((cancelled) => resolve({ cancelled }))),
    closeDocument: () => ({ closed: true }),
  };
  const transport: Transport = {
    kind: 'websocket',
    request: async (name) => (answers[name] as () => never)(),
    onEvents: () => () => undefined,
  };
  /** The decode under way, once it has been asked for: the function that ends it. */
  const next = async () => {
    const finish = await decoding;
    decoding = new Promise((r) => { requested = r; });
    return finish;
  };
  return { transport, next };
}

function open(storage: ReturnType<typeof memoryStorage>) {
  const engine = heldEngine();
  return { ...createSession(engine.transport, storage, (f) => f()), engine };
}

/** Runs a decode that writes `text`, ended as the engine would (finished, or cancelled). */
async function decodeWriting(session: ReturnType<typeof open>, start: Promise<void>, text: string, cancelled = false) {
  const finish = await session.engine.next();
  session.actions.editorChanged(text, false);
  finish(cancelled);
  await start;
}

test('an edit survives "Decode again" and a reload, set aside until the user restores it, and merged into the new text', async () => {
  const storage = memoryStorage();
  const first = open(storage);
  await decodeWriting(first, first.actions.openSample(doc.name), '# Report\n\nDecoded.');
  assert.equal(first.store.getState().phase, 'done');
  first.actions.editorChanged('# Report\n\nDecoded, and checked by me.', true);
  await first.actions.decode();
  assert.equal(first.store.getState().confirmingDecode, true, 'decoding over edits asks first');
  assert.deepEqual(first.store.getState().setAside, []);
  const again = first.actions.decode(true);
  assert.deepEqual(first.store.getState().setAside.map((v) => v.text), ['# Report\n\nDecoded, and checked by me.']);
  await decodeWriting(first, again, '# Report (2)\n\nDecoded.');
  assert.deepEqual(first.store.getState().settle, { decoded: '# Report (2)\n\nDecoded.', text: '# Report (2)\n\nDecoded, and checked by me.' });
  first.actions.editorChanged('# Report (2)\n\nDecoded, and checked by me.', false);
  first.actions.flushDraft();

  const second = open(storage);
  await second.actions.openSample(doc.name);
  const s = second.store.getState();
  assert.equal(s.doc!.draft!.text, '# Report (2)\n\nDecoded, and checked by me.', 'the saved text is opened, not decoded over');
  assert.equal(s.setAside.length, 1, 'the set-aside edit is offered after the reload');
  second.actions.restoreSetAside();
  const after = second.store.getState();
  assert.equal(after.doc!.draft!.text, '# Report\n\nDecoded, and checked by me.');
  assert.deepEqual(after.setAside.map((v) => v.text), ['# Report (2)\n\nDecoded, and checked by me.'], 'the merged text holds edits: it is set aside in turn');
  assert.equal(after.run, null, 'the run went with the text it decoded');
  assert.equal(loadDraft(storage, after.doc!.key)!.text, '# Report\n\nDecoded, and checked by me.');
});

test('a cancelled "Decode again" gives the text from before back', async () => {
  const storage = memoryStorage();
  const session = open(storage);
  await decodeWriting(session, session.actions.openSample(doc.name), '# Report\n\nThe whole page.');
  await decodeWriting(session, session.actions.decode(), '# Rep', true);
  const s = session.store.getState();
  assert.equal(s.doc!.draft!.text, '# Report\n\nThe whole page.');
  assert.match(noticeOf(s.notices, 'action')!.text, /cancelled: the text from before it is back/);
  assert.equal(loadDraft(storage, s.doc!.key)!.text, '# Report\n\nThe whole page.');
});

test('storage that refuses the text puts a notice up that a new decode does not clear', async () => {
  const storage = memoryStorage(2_000);
  const session = open(storage);
  const { store, actions } = session;
  await decodeWriting(session, actions.openSample(doc.name), 'decoded');
  actions.editorChanged('x'.repeat(5_000), true);
  actions.flushDraft();
  assert.equal(noticeOf(store.getState().notices, 'draft')?.kind, 'error');
  await decodeWriting(session, actions.decode(true), 'decoded again');
  const notice = noticeOf(store.getState().notices, 'draft')!;
  assert.match(notice.text, /could not be saved in this browser's storage/);
  actions.dismissNotice(notice.id);
  assert.equal(noticeOf(store.getState().notices, 'draft'), undefined);
});
