// A decode's checking aids across a reload, through the session's actions: a dense two-page decode (more than
// the million characters of JSON kept before) comes back whole from the run store when its document is opened
// again; a store that refuses it says so when it is kept and again when the document is reopened; and what was
// said about one document goes when another is opened.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestMap, SessionEvent } from '../../common/protocol';
import { noticeOf } from '../../renderer/src/state/notices';
import { createSession } from '../../renderer/src/state/session-store';
import type { Transport } from '../../renderer/src/transport/transport';
import { memoryRunStore } from '../support/memory-run-store';
import { memoryStorage } from '../support/memory-storage';
import { buildSyntheticDecode } from '../support/synthetic-decode';

const dense = buildSyntheticDecode({ pages: 2, dense: 14 });
const other = buildSyntheticDecode({ docId: 'other-doc', name: 'other.png' });

/** An engine that opens the synthetic documents by name, and whose decodes stream their events, then finish. */
function engine() {
  let listener: ((b: { docId: string | null; events: SessionEvent[] }) => void) | null = null;
  let open = dense;
  const transport: Transport = {
    kind: 'websocket',
    request: async (name, params) => {
      if (name === 'openSample') {
        open = [dense, other].find((d) => d.doc.name === (params as RequestMap['openSample'][0]).name)!;
        return { doc: open.doc, bytes: Buffer.from(open.doc.name).toString('base64') } as never;
      }
      if (name === 'decode') {
        for (const events of open.batches) listener?.({ docId: open.doc.docId, events });
        return { cancelled: false } as never;
      }
      return { closed: true } as never;
    },
    onEvents: (l) => { listener = l; return () => { listener = null; }; },
  };
  return transport;
}

type Runs = ReturnType<typeof memoryRunStore>;

async function decodedThenReopened(storage: ReturnType<typeof memoryStorage>, runs: Runs) {
  const first = createSession(engine(), storage, (f) => f(), runs);
  first.store.subscribe((s, prev) => {
    // The editor's part: the decode's text reaches the draft as it streams.
    if (s.revision !== prev.revision && s.run) first.actions.editorChanged(`${s.run.tokens} tokens`, false);
  });
  await first.actions.openSample(dense.doc.name);
  assert.equal(first.store.getState().phase, 'done');
  await new Promise((r) => setTimeout(r, 0));
  const before = first.store.getState();
  const reloaded = createSession(engine(), storage, (f) => f(), runs);
  await reloaded.actions.openSample(dense.doc.name);
  return { before, after: reloaded.store.getState(), session: reloaded };
}

test('a dense two-page decode comes back whole when its document is opened again', async () => {
  assert.ok(JSON.stringify(dense.batches.flat().map((e) => (e.type === 'token' ? { ...e, fixation: null } : e))).length > 1_000_000,
    'more than the old budget, heatmaps or not');
  const { before, after } = await decodedThenReopened(memoryStorage(), memoryRunStore());
  assert.equal(noticeOf(before.notices, 'aids'), undefined, 'nothing to say: it was kept whole');
  assert.equal(after.phase, 'done');
  assert.equal(after.run!.tokens, before.run!.tokens);
  assert.ok(after.run!.tokens > 4000);
  assert.equal(after.run!.timeline.length, before.run!.timeline.length);
  assert.equal(after.run!.visualShare, before.run!.visualShare);
  const heatmaps = [...after.run!.regions.values()].flatMap((r) => r.tokens).filter((t) => (t.fixation?.indices.length ?? 0) > 1);
  assert.equal(heatmaps.length, after.run!.tokens);
  assert.equal(noticeOf(after.notices, 'aids'), undefined);
});

test('a run store that refuses the decode says so, when it is kept and when the document is reopened', async () => {
  const { before, after } = await decodedThenReopened(memoryStorage(), memoryRunStore(1000));
  assert.match(noticeOf(before.notices, 'aids')!.text, /checking aids of sample-report\.png's decode could not be kept/);
  assert.equal(after.run, null);
  assert.match(noticeOf(after.notices, 'aids')!.text, /checking aids of sample-report\.png's last decode .* were not kept: decode again to see them/);
});

test('opening another document takes down what was said about the one before', async () => {
  const storage = memoryStorage();
  const { session } = await decodedThenReopened(storage, memoryRunStore(1000));
  assert.ok(session.store.getState().notices.length > 0);
  await session.actions.openSample(other.doc.name);
  assert.equal(session.store.getState().doc!.info.name, 'other.png');
  assert.deepEqual(session.store.getState().notices.filter((n) => n.text.includes('sample-report.png')), []);
});
