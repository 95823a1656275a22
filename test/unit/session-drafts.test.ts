// The session's drafts through its actions, with the editor's part played by hand: "Decode again" sets an
// edited text aside, a reload shows it, restoring brings it back, and storage that refuses the text says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestMap, RequestName } from '../../common/protocol';
import { loadDraft } from '../../renderer/src/state/drafts';
import { createSession } from '../../renderer/src/state/session-store';
import type { Transport } from '../../renderer/src/transport/transport';
import { memoryStorage } from '../support/memory-storage';
import { buildSyntheticDecode } from '../support/synthetic-decode';

const { doc } = buildSyntheticDecode();

/** An engine that opens the sample and finishes every decode at once (no events: the text is typed here). */
function instantEngine(): Transport {
  const answers: { [N in RequestName]?: () => RequestMap[N][1] } = {
    openSample: () => ({ doc, bytes: Buffer.from('page').toString('base64') }),
    decode: () => ({ regions: [], cancelled: false }),
    closeDocument: () => ({ closed: true }),
  };
  return {
    kind: 'websocket',
    request: async (name) => (answers[name] as () => never)(),
    onEvents: () => () => undefined,
  };
}

const open = (storage: ReturnType<typeof memoryStorage>) => createSession(instantEngine(), storage, (f) => f());

test('an edit survives "Decode again" and a reload, set aside until the user restores it', async () => {
  const storage = memoryStorage();
  const first = open(storage);
  await first.actions.openSample(doc.name);
  assert.equal(first.store.getState().phase, 'done');
  first.actions.editorChanged('# Report\n\nDecoded.', false);
  first.actions.editorChanged('# Report\n\nDecoded, and checked by me.', true);
  await first.actions.decode();
  assert.deepEqual(first.store.getState().setAside.map((v) => v.text), ['# Report\n\nDecoded, and checked by me.']);
  first.actions.editorChanged('# Report\n\nDecoded again.', false);
  first.actions.flushDraft();

  const second = open(storage);
  await second.actions.openSample(doc.name);
  const s = second.store.getState();
  assert.equal(s.doc!.draft!.text, '# Report\n\nDecoded again.', 'the saved text is opened, not decoded over');
  assert.equal(s.setAside.length, 1, 'the set-aside edit is offered after the reload');
  second.actions.restoreSetAside();
  const after = second.store.getState();
  assert.equal(after.doc!.draft!.text, '# Report\n\nDecoded, and checked by me.');
  assert.deepEqual(after.setAside, []);
  assert.equal(after.run, null, 'the run went with the text it decoded');
  assert.equal(loadDraft(storage, after.doc!.key)!.text, '# Report\n\nDecoded, and checked by me.');
});

test('storage that refuses the text puts a notice up that a new decode does not clear', async () => {
  const storage = memoryStorage(2_000);
  const { store, actions } = open(storage);
  await actions.openSample(doc.name);
  actions.editorChanged('x'.repeat(5_000), true);
  actions.flushDraft();
  assert.equal(store.getState().draftNotice?.kind, 'error');
  await actions.decode();
  assert.match(store.getState().draftNotice!.text, /could not be saved in this browser's storage/);
  actions.dismissDraftNotice();
  assert.equal(store.getState().draftNotice, null);
});
