// The decodes kept for the checking aids: compact bytes in the run store, a dense 50-page PDF kept whole within
// the per-document budget, heatmaps cut to their peaks past it (word boxes kept) and nothing past that, a
// refusing store said so, and nothing replayed from storage that the engine would not be let send.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RoundEvent, TokenEvent } from '../../common/engine-types';
import type { SessionEvent } from '../../common/protocol';
import { DecodeRun } from '../../renderer/src/state/decode-run';
import { encodeRun } from '../../renderer/src/state/run-codec';
import { dropLegacyRuns, keepRunsOf, loadRun, RUN_BUDGET_BYTES, saveRun } from '../../renderer/src/state/saved-runs';
import { memoryRunStore } from '../support/memory-run-store';
import { memoryStorage } from '../support/memory-storage';
import { buildSyntheticDecode } from '../support/synthetic-decode';

const { doc, batches } = buildSyntheticDecode({ pages: 2 });
const events = batches.flat();

test('a kept decode replays into the same run under the document\'s new id, heatmaps and all', async () => {
  const runs = memoryRunStore();
  const original = new DecodeRun(doc.docId);
  original.apply(events);
  assert.equal(await saveRun(runs, 'k', doc.docId, original.log), 'whole');
  const saved = (await loadRun(runs, 'k'))!;
  assert.equal(saved.withoutHeatmaps, false);
  const replayed = DecodeRun.replay(saved, 'doc-new');
  assert.equal(replayed.docId, 'doc-new');
  assert.deepEqual(replayed.timeline.map((r) => r.event), original.timeline.map((r) => r.event.draftConf && {
    ...r.event, draftConf: r.event.draftConf.map(Math.fround),
  }));
  assert.equal(replayed.tokens, original.tokens);
  assert.equal(replayed.speedVsAr, original.speedVsAr);
  assert.deepEqual([...replayed.pages.keys()], [...original.pages.keys()]);
  for (const [id, region] of original.regions) {
    const back = replayed.regions.get(id)!;
    assert.equal(back.status, region.status);
    const kept = (t: TokenEvent) => [t.text, t.arProb, t.decoderProb, t.readProb, t.fixation?.indices];
    assert.deepEqual(back.tokens.map(kept), region.tokens.map(kept));
    assert.deepEqual(back.tokens.map((t) => t.fixation?.weights), region.tokens.map((t) => t.fixation?.weights.map(Math.fround)));
  }
  assert.ok(runs.map.get('k')!.length * 3 < JSON.stringify(events).length, 'a third of the JSON or less');
});

/** A dense page as the engine reads it: lines of 40 tokens in rounds of four, each token with a 32-cell heatmap. */
function densePages(pages: number, tokensPerPage: number): SessionEvent[] {
  const out: SessionEvent[] = [];
  for (let p = 0; p < pages; p++) {
    const regionId = `p${p}-r0`;
    const lines = tokensPerPage / 40;
    out.push({ type: 'page_layout', docId: 'd', page: p, textAngle: 0, regions: [{ id: regionId, page: p, kind: 'text', box: { x0: 50, y0: 50, x1: 2400, y1: 3400 }, order: 0 }],
      lines: Array.from({ length: lines }, (_, l) => ({ regionId, box: { x0: 50, y0: 50 + l * 60, x1: 2400, y1: 100 + l * 60 }, inkWords: [] })) });
    out.push({ type: 'region_start', regionId, kind: 'text', grid: { rows: 2, cols: 90 }, imageTokens: 180 });
    for (let i = 0; i < tokensPerPage; i++) {
      const line = Math.floor(i / 40);
      if (i % 4 === 0) {
        const round: RoundEvent = { type: 'round', regionId, round: i / 4, blockSize: 4, drafter: 'mtp', draft: [11, 12, 13, 14], draftConf: [0.9, 0.8, 0.7, 0.6],
          verify: [11, 12, 13, 14], accepted: 3, committed: [11, 12, 13, 14], forwards: 1, draftMs: 1.25, verifyMs: 20.5 };
        out.push(round);
      }
      const token: TokenEvent = { type: 'token', regionId, index: i, id: 100 + (i % 900), text: ` w${i % 900}`, round: Math.floor(i / 4), source: 'accepted',
        draftConf: 0.75, arProb: Math.fround(0.5 + (i % 50) / 100), decoderProb: Math.fround(0.9 + (i % 10) / 100),
        readProb: i % 7 === 0 ? -1 : Math.fround(0.5 + (i % 30) / 100),
        fixation: { indices: Array.from({ length: 32 }, (_, c) => (i * 7 + c) % 180), weights: Array.from({ length: 32 }, (_, c) => 1 / (c + 2)),
          frame: { box: { x0: 50, y0: 50 + line * 60, x1: 2400, y1: 100 + line * 60 }, rows: 2, cols: 90 } } };
      out.push(token);
    }
  }
  return out;
}

test('a dense 50-page PDF (2,000 tokens a page, each with a 32-cell heatmap) is kept whole within the budget', async () => {
  const runs = memoryRunStore();
  const dense = densePages(50, 2000);
  assert.equal(await saveRun(runs, 'pdf', 'd', dense), 'whole');
  const bytes = runs.map.get('pdf')!.length;
  assert.ok(bytes <= RUN_BUDGET_BYTES, `${bytes} bytes`);
  const back = (await loadRun(runs, 'pdf'))!;
  assert.equal(back.events.length, dense.length);
  assert.deepEqual(back.events.at(-1), dense.at(-1) && { ...dense.at(-1)!, fixation: { ...(dense.at(-1) as TokenEvent).fixation!, weights: (dense.at(-1) as TokenEvent).fixation!.weights.map(Math.fround) } });
});

test('a decode over the budget keeps the heatmaps\' peaks (the word boxes); far over, nothing, and not the older one', async () => {
  const runs = memoryRunStore();
  const dense = densePages(2, 2000);
  const whole = encodeRun('d', dense, 'whole', Infinity)!.length;
  const peaks = encodeRun('d', dense, 'peaks', Infinity)!.length;
  assert.ok(peaks * 4 < whole, `peaks ${peaks} bytes, whole ${whole}`);
  assert.equal(await saveRun(runs, 'k', 'd', dense, (whole + peaks) / 2), 'without heatmaps');
  const back = (await loadRun(runs, 'k'))!;
  assert.equal(back.withoutHeatmaps, true);
  const tokens = back.events.filter((e): e is TokenEvent => e.type === 'token');
  assert.ok(tokens.every((t) => t.fixation!.indices.length === 1 && t.fixation!.frame !== undefined), 'each token keeps its peak and its line');
  assert.equal(await saveRun(runs, 'k', 'd', dense, peaks / 2), 'too large');
  assert.equal(await loadRun(runs, 'k'), null, 'the older decode of the document is not left behind a newer text');
});

test('a store that refuses the bytes is reported, and leaves no older decode behind', async () => {
  const runs = memoryRunStore();
  assert.equal(await saveRun(runs, 'k', doc.docId, events), 'whole');
  runs.quota = 10;
  assert.equal(await saveRun(runs, 'k', doc.docId, events), 'refused');
  assert.equal(await loadRun(runs, 'k'), null);
  assert.equal(await saveRun(null, 'k', doc.docId, events), 'refused');
});

test('a line the encoder read alone (tokens of source encoder, id -1) is kept and replays as it was', async () => {
  const runs = memoryRunStore();
  const regionId = events.flatMap((e) => (e.type === 'region_start' ? [e.regionId] : []))[0]!;
  const encoderToken: TokenEvent = { type: 'token', regionId, index: 0, id: -1, text: '東', round: 0, source: 'encoder', draftConf: -1, arProb: 0.97, decoderProb: -1, readProb: -1,
    fixation: { indices: [3], weights: [1] } };
  await saveRun(runs, 'k', doc.docId, [...events, encoderToken]);
  assert.deepEqual((await loadRun(runs, 'k'))!.events.at(-1), encoderToken);
});

test('a decode kept before tokens carried the readers\' votes still replays, its tokens without votes', async () => {
  // Version 1's bytes, written out by hand: the header, then one token record (no decoderProb, readProb).
  const bytes: number[] = [0x53, 0x52, 0x55, 0x4e, 1, 0];
  const raw = (s: string) => bytes.push(s.length, ...new TextEncoder().encode(s));
  const float = (v: number, size: 4 | 8) => {
    const b = new DataView(new ArrayBuffer(size));
    if (size === 4) b.setFloat32(0, v, true);
    else b.setFloat64(0, v, true);
    bytes.push(...new Uint8Array(b.buffer));
  };
  raw('d');
  bytes.push(2);
  raw('p0-r0');
  raw('Hi');
  bytes.push(0, 1, 1, 0, 0, 5, 1, 0, 0);  // no frames; one event: a token of region 0, index 0, id 5, text 1, round 0, source ar
  float(-1, 4);
  float(0.75, 8);
  bytes.push(0);  // no fixation
  const runs = memoryRunStore();
  runs.map.set('k', Uint8Array.from(bytes));
  assert.deepEqual((await loadRun(runs, 'k'))!.events, [{ type: 'token', regionId: 'p0-r0', index: 0, id: 5, text: 'Hi', round: 0, source: 'ar',
    draftConf: -1, arProb: 0.75, decoderProb: -1, readProb: -1, fixation: null }]);
});

test('bytes altered or cut short in storage read as nothing, and events the engine could not send are not replayed', async () => {
  const runs = memoryRunStore();
  await saveRun(runs, 'k', doc.docId, [events[0]!, { type: 'token', regionId: 'r', index: 0 } as unknown as SessionEvent]);
  assert.deepEqual((await loadRun(runs, 'k'))!.events, [events[0]], 'a token without its fields, kept as JSON, is dropped');
  await saveRun(runs, 'k', doc.docId, events);
  const bytes = runs.map.get('k')!;
  runs.map.set('k', bytes.subarray(0, bytes.length - 3));
  assert.equal(await loadRun(runs, 'k'), null);
  const huge = bytes.slice();
  huge.fill(0xff, 20, 40);
  runs.map.set('k', huge);
  assert.equal(await loadRun(runs, 'k'), null);
  runs.map.set('k', new TextEncoder().encode('{"docId": 1}'));
  assert.equal(await loadRun(runs, 'k'), null);
});

test('only the documents that keep a draft keep a decode, and the old localStorage copies are freed', async () => {
  const runs = memoryRunStore();
  for (const key of ['a', 'b', 'c']) await saveRun(runs, key, doc.docId, events);
  await keepRunsOf(runs, new Set(['b']));
  assert.deepEqual([...runs.map.keys()], ['b']);
  const storage = memoryStorage();
  storage.setItem('saccade.runs', JSON.stringify(['x']));
  storage.setItem('saccade.run.x', '{}');
  storage.setItem('saccade.draft.x', '{}');
  dropLegacyRuns(storage);
  assert.deepEqual([...storage.map.keys()], ['saccade.draft.x']);
});
