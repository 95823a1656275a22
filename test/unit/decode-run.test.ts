import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecodeRun } from '../../renderer/src/state/decode-run';
import { buildSyntheticDecode, tokenize } from '../support/synthetic-decode';

test('a run rebuilds every region text, round and total from the event stream', () => {
  const synthetic = buildSyntheticDecode();
  const run = new DecodeRun(synthetic.doc.docId);
  for (const batch of synthetic.batches) run.apply(batch);
  for (const region of synthetic.regions) {
    const r = run.regions.get(region.id)!;
    assert.equal(r.status, 'done');
    assert.equal(r.tokens.map((t) => t.text).join(''), region.lines.join('\n'));
  }
  const rounds = synthetic.batches.flat().filter((e) => e.type === 'round');
  assert.equal(run.timeline.length, rounds.length);
  assert.equal(run.tokens, synthetic.regions.reduce((n, r) => n + tokenize(r.lines.join('\n')).length, 0));
  assert.equal(run.forwards, rounds.length);  // one verify-and-draft forward per round
  // The looping region's six retracted tokens left the text, not the rates: the forwards paid for them.
  const retracted = synthetic.batches.flat().filter((e) => e.type === 'retract').length * 6;
  assert.equal(run.committed, run.tokens + retracted);
  assert.equal(run.tokensPerForward, run.committed / run.forwards);
  assert.ok(run.tokensPerForward! > 1, 'self-speculative rounds commit more than one token per forward');
  assert.equal(run.timeline.at(-1)!.tokensSoFar, run.committed);
  assert.deepEqual(run.unfinishedPages(1), []);
  assert.equal(run.progress?.regionsDone, synthetic.regions.length);
  // A line dropped as unsure is kept beside its region's text, not in it.
  for (const region of synthetic.regions) assert.deepEqual(run.regions.get(region.id)!.unsure, region.unsure ?? []);
  assert.equal(run.regions.get('p0-r4')!.unsure.length, 1);
});

test('editor operations open, fill and close each region in decode order', () => {
  const synthetic = buildSyntheticDecode();
  const run = new DecodeRun(synthetic.doc.docId);
  for (const batch of synthetic.batches) run.apply(batch);
  const first = run.editorOps.filter((o) => o.regionId === 'p0-r0');
  assert.equal(first[0]!.op, 'open');
  assert.equal(first.at(-1)!.op, 'close');
  assert.ok(first.slice(1, -1).every((o, i) => o.op === 'token' && o.index === i));
});

test('events of another document and out-of-order tokens are ignored', () => {
  const synthetic = buildSyntheticDecode();
  const run = new DecodeRun('another-doc');
  for (const batch of synthetic.batches) run.apply(batch);
  assert.equal(run.regions.size, 0);
  assert.equal(run.tokens, 0);

  const own = new DecodeRun(synthetic.doc.docId);
  own.apply(synthetic.batches[0]!);
  own.apply(synthetic.batches[1]!);
  const token = synthetic.batches[2]!.find((e) => e.type === 'token')!;
  own.apply([{ ...token, index: 5 }]);
  assert.equal(own.tokens, 0);
});

test('a restart after a crash drops only the unfinished page and decodes it under the new id', () => {
  const synthetic = buildSyntheticDecode();
  const run = new DecodeRun(synthetic.doc.docId);
  // Crash in the middle of the third region.
  const cut = synthetic.batches.findIndex((b) => b.some((e) => e.type === 'region_start' && e.regionId === 'p0-r2')) + 2;
  for (const batch of synthetic.batches.slice(0, cut)) run.apply(batch);
  assert.deepEqual(run.unfinishedPages(1), [0]);
  const before = run.editorOps.length;
  run.restartPages([0], 'new-doc');
  const resets = run.editorOps.slice(before);
  assert.deepEqual(resets.map((o) => `${o.op}:${o.regionId}`), ['reset:p0-r0', 'reset:p0-r1', 'reset:p0-r2']);
  assert.equal(run.tokens, 0);
  const again = buildSyntheticDecode({ docId: 'new-doc' });
  for (const batch of again.batches) run.apply(batch);
  assert.equal(run.regions.get('p0-r4')!.status, 'done');
  assert.deepEqual(run.unfinishedPages(1), []);
});

test('a retract takes back the region tail from the editor and the totals', () => {
  const synthetic = buildSyntheticDecode();
  const run = new DecodeRun(synthetic.doc.docId);
  const events = synthetic.batches.flat();
  const start = events.findIndex((e) => e.type === 'region_start');
  const regionId = (events[start] as { regionId: string }).regionId;
  const firstFive = events.filter((e) => e.type === 'token' && e.regionId === regionId).slice(0, 5);
  run.apply(events.slice(0, events.indexOf(firstFive.at(-1)!) + 1));
  const before = run.tokens;
  run.apply([{ type: 'retract', regionId, index: 2 }]);
  const region = run.regions.get(regionId)!;
  assert.equal(region.tokens.length, 2);
  assert.equal(run.tokens, before - 3);
  assert.deepEqual(run.editorOps.at(-1), { op: 'retract', regionId, index: 2 });
  assert.deepEqual(run.live, { regionId, index: 1 });
});

test('the visual token share is what the engine attended, not the size of the heatmaps', () => {
  const synthetic = buildSyntheticDecode();
  const run = new DecodeRun(synthetic.doc.docId);
  // Every image token attended (keepRatio 1): the heatmaps still list only their strongest tokens.
  const batches = synthetic.batches.map((b) => b.map((e) => (e.type === 'region_end' ? { ...e, stats: { ...e.stats, visualTokenFraction: 1 } } : e)));
  for (const batch of batches) run.apply(batch);
  assert.ok(synthetic.batches.flat().some((e) => e.type === 'token' && e.fixation && e.fixation.indices.length < (run.regions.get(e.regionId)!.imageTokens)));
  assert.equal(run.visualShare, 1);

  const none = new DecodeRun(synthetic.doc.docId);
  for (const batch of synthetic.batches) none.apply(batch.map((e) => (e.type === 'token' ? { ...e, fixation: null } : e)));
  assert.equal(none.visualShare, null, 'no fixation, no share');
});

test('a decode whose tokens carry only their crops, with empty heatmaps (fixation off), reports no fixation', () => {
  const synthetic = buildSyntheticDecode();
  const frame = { box: { x0: 0, y0: 0, x1: 10, y1: 10 }, rows: 1, cols: 4 };
  const run = new DecodeRun(synthetic.doc.docId);
  for (const batch of synthetic.batches) {
    run.apply(batch.map((e) => (e.type === 'token' ? { ...e, fixation: { indices: [], weights: [], frame } } : e)));
  }
  assert.equal(run.visualShare, null);
});

test('the time left follows the rate regions finish at, not the time the page took to lay out', () => {
  // Progress as the engine reported it for the sample scan on two cores (132 line crops, 23.9 s in all): the
  // first crops finished together at 19.2 s, after the page's analysis and the first batch.
  const at = (regionsDone: number, elapsedMs: number, remainingMs: number | null) => ({ type: 'progress' as const, docId: 'd', regionsDone, regionsTotal: 132, elapsedMs, remainingMs });
  const run = new DecodeRun('d');
  run.apply([at(0, 2981, null), at(11, 19208, 211288)]);
  assert.equal(run.remainingMs, null, 'one report after the first region cannot say a rate');
  run.apply([at(55, 20521, 28729)]);
  // 3.4 s were left; the engine said 28.7 s.
  assert.ok(run.remainingMs! > 1_700 && run.remainingMs! < 6_800, `${run.remainingMs} ms`);
  run.apply([at(99, 22975, 7658)]);
  assert.ok(run.remainingMs! > 450 && run.remainingMs! < 1_850, `${run.remainingMs} ms (0.9 s were left)`);
});
