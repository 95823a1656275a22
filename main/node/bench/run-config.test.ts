import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RegionStats } from '../../../common/engine-types';
import { decodeMs, endToEndMs, keepFastest, type ConfigOutcome, type RegionOutcome } from './run-config';

function region(id: string, text: string, ms: { encode: number; prefill: number; decode: number }): RegionOutcome {
  const stats: RegionStats = { tokens: text.length, forwards: text.length, rounds: text.length, encodeMs: ms.encode,
    prefillMs: ms.prefill, decodeMs: ms.decode, decodeShareMs: ms.decode, attentionMs: ms.decode / 2, visualTokenFraction: 1, retractedTokens: 0,
    committed: text.length, arEstimateMs: ms.decode };
  return { id, kind: 'text', source: 'synthetic', text, stats, score: 1, acceptedPerRound: [], blockSizes: [0] };
}

const outcome = (regions: RegionOutcome[]): ConfigOutcome => ({ name: 'ar', regions, hits: { hits: 0, total: 0 } });

test('each region keeps its fastest time per phase and the first pass outputs', () => {
  const first = outcome([region('a', 'first', { encode: 5, prefill: 1, decode: 40 }),
    region('b', 'first', { encode: 2, prefill: 3, decode: 10 })]);
  const second = outcome([region('a', 'second', { encode: 6, prefill: 2, decode: 30 }),
    region('b', 'second', { encode: 1, prefill: 4, decode: 90 })]);
  const kept = keepFastest(first, second);
  assert.deepEqual(kept.regions.map((r) => r.text), ['first', 'first']);
  assert.equal(decodeMs(kept), 30 + 10);
  assert.equal(endToEndMs(kept), 5 + 1 + 30 + 1 + 3 + 10);
  assert.deepEqual(kept.regions.map((r) => r.stats.attentionMs), [15, 5]);
  assert.equal(decodeMs(first), 50, 'the earlier outcome is left as it was');
});
