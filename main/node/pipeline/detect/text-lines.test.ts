import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linesFromProbability } from './text-lines';

/** A probability map of `width` x `height` with the given value in each rectangle [x0, x1) x [y0, y1). */
function map(width: number, height: number, fills: Array<[number, number, number, number, number]>): Float32Array {
  const m = new Float32Array(width * height);
  for (const [x0, x1, y0, y1, v] of fills) for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) m[y * width + x] = v;
  return m;
}

test('a line is scored inside its own outline: the tips of its quote marks do not sink it', () => {
  // A line's kernel on rows 8-13, two quote-mark tips above it on rows 4-7: its rectangle is 40% near-empty
  // rows (mean 0.58, under the 0.6 bar), its outline is not (0.94).
  const prob = map(60, 20, [[5, 55, 8, 14, 0.95], [10, 12, 4, 8, 0.5]]);
  const lines = linesFromProbability(prob, 60, 20);
  assert.equal(lines.length, 1);
  assert.ok(Math.abs(lines[0]!.score - 289 / 308) < 1e-6, `${lines[0]!.score}`);
});

test('a faint blob is no line, however large', () => {
  assert.deepEqual(linesFromProbability(map(60, 20, [[5, 55, 8, 14, 0.35]]), 60, 20), []);
});
