import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TokenEvent } from '../../../common/engine-types';
import type { BenchRegion } from './bench-regions';
import { fixationHits, matchWords } from './fixation-hit';

test('output words are matched to the truth by their longest common subsequence', () => {
  assert.deepEqual(matchWords(['the', 'qiuck', 'brown', 'fox'], ['the', 'quick', 'brown', 'fox']), [[0, 0], [2, 2], [3, 3]]);
  assert.deepEqual(matchWords(['a', 'b', 'b', 'c'], ['a', 'b', 'c']), [[0, 0], [1, 1], [3, 2]]);  // a repeated word: the first copy
  assert.deepEqual(matchWords([], ['a']), []);
});

test('tokens of words read right count after a misread word, each against its own word box', () => {
  // A 1 x 4 grid of 10 px cells over a 40 x 10 crop; the truth "ab cd ef" has one word per cell from x = 0.
  const region: BenchRegion = {
    input: { id: 'r', kind: 'text', width: 40, height: 10, pixels: new Uint8Array(400) },
    source: 'synthetic',
    target: 'ab cd ef',
    words: [{ text: 'ab', x0: 0, y0: 0, x1: 8, y1: 10 }, { text: 'cd', x0: 10, y0: 0, x1: 18, y1: 10 },
      { text: 'ef', x0: 20, y0: 0, x1: 28, y1: 10 }],
  };
  const token = (text: string, peak: number): TokenEvent => ({ type: 'token', regionId: 'r', index: 0, id: 9, text, round: 0,
    source: 'ar', draftConf: -1, arProb: 1, decoderProb: -1, readProb: -1, fixation: { indices: [peak], weights: [1] } });
  // "ab" looked at cell 0 (hit), "cx" is misread (not counted), "e"+"f" looked at cells 2 (hit) and 3 (the
  // box widened by half a cell reaches x = 33; cell 3's centre is 35: a miss).
  const hits = fixationHits(region, { rows: 1, cols: 4 }, [token('ab', 0), token(' cx', 1), token(' e', 2), token('f', 3)]);
  assert.deepEqual(hits, { hits: 2, total: 3 });
});
