// The decodes kept for the checking aids: bounded per document (heatmaps dropped first) and in number, older
// ones making room when storage is full, and nothing replayed that the engine would not be let send.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../common/protocol';
import { DecodeRun } from '../../renderer/src/state/decode-run';
import { loadRun, RUN_BUDGET_CHARS, RUNS_KEPT, saveRun } from '../../renderer/src/state/saved-runs';
import { memoryStorage } from '../support/memory-storage';
import { buildSyntheticDecode } from '../support/synthetic-decode';

const { doc, batches } = buildSyntheticDecode();
const events = batches.flat();

test('a kept decode replays into the same run under the document\'s new id', () => {
  const storage = memoryStorage();
  const original = new DecodeRun(doc.docId);
  original.apply(events);
  assert.equal(saveRun(storage, 'k', doc.docId, original.log), true);
  const replayed = DecodeRun.replay(loadRun(storage, 'k')!, 'doc-new');
  assert.equal(replayed.docId, 'doc-new');
  assert.equal(replayed.timeline.length, original.timeline.length);
  assert.equal(replayed.tokens, original.tokens);
  assert.deepEqual([...replayed.pages.keys()], [...original.pages.keys()]);
  assert.ok([...replayed.regions.values()].every((r) => r.status === original.regions.get(r.id)!.status));
});

test('a decode over the budget keeps its tokens without heatmaps; far over, nothing', () => {
  const storage = memoryStorage();
  const token = events.find((e): e is Extract<SessionEvent, { type: 'token' }> => e.type === 'token' && e.fixation !== null)!;
  const many = Array.from({ length: Math.ceil(RUN_BUDGET_CHARS / JSON.stringify(token).length) + 1 }, () => token);
  assert.equal(saveRun(storage, 'big', doc.docId, many), true);
  const kept = loadRun(storage, 'big')!;
  assert.equal(kept.withoutHeatmaps, true);
  assert.ok(kept.events.every((e) => e.type !== 'token' || e.fixation === null));
  const slim = { ...token, fixation: null };
  const huge = Array.from({ length: Math.ceil(RUN_BUDGET_CHARS / JSON.stringify(slim).length) + 1 }, () => slim);
  assert.equal(saveRun(storage, 'big', doc.docId, huge), false);
  assert.equal(loadRun(storage, 'big'), null, 'the older decode of the document is not left behind a newer text');
});

test('only the most recent decodes are kept, and older ones make room when storage is full', () => {
  const storage = memoryStorage();
  for (let i = 0; i <= RUNS_KEPT; i++) saveRun(storage, `d${i}`, doc.docId, events);
  assert.equal(loadRun(storage, 'd0'), null);
  assert.ok(loadRun(storage, `d${RUNS_KEPT}`));
  storage.quota = [...storage.map].reduce((n, [k, v]) => n + k.length + v.length, 0) + 100;
  assert.equal(saveRun(storage, 'newest', doc.docId, events), true);
  assert.ok(loadRun(storage, 'newest'));
  assert.equal(loadRun(storage, 'd1'), null, 'the oldest kept decode made room');
});

test('stored events the engine could not send are not replayed', () => {
  const storage = memoryStorage();
  storage.setItem('saccade.run.k', JSON.stringify({ docId: 'd', events: [{ type: 'token', regionId: 5 }, events[0]] }));
  assert.deepEqual(loadRun(storage, 'k')!.events, [events[0]]);
  storage.setItem('saccade.run.k', '{"docId": 1}');
  assert.equal(loadRun(storage, 'k'), null);
});
