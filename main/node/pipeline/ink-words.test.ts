import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inkWords } from './ink-words';

/** A binary raster with ink in the given boxes. */
function raster(width: number, height: number, boxes: Array<[number, number, number, number]>): Uint8Array {
  const ink = new Uint8Array(width * height);
  for (const [x0, y0, x1, y1] of boxes) for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) ink[y * width + x] = 1;
  return ink;
}

test('ink along a line groups into words at gaps wider than a fifth of the line height', () => {
  // A 20-px line: letters 2 px apart make one word; 6 px (over 4) start the next. Ink outside the line's
  // box (a neighbour's descender above) is not the line's.
  const ink = raster(120, 40, [
    [10, 12, 14, 28], [16, 10, 20, 28], [22, 14, 26, 30],
    [32, 12, 40, 28],
    [60, 12, 70, 26], [72, 12, 80, 26], [30, 0, 34, 9],
  ]);
  assert.deepEqual(inkWords(ink, 120, 40, { x0: 0, y0: 10, x1: 120, y1: 30 }), [
    { x0: 10, y0: 10, x1: 26, y1: 30 },
    { x0: 32, y0: 12, x1: 40, y1: 28 },
    { x0: 60, y0: 12, x1: 80, y1: 26 },
  ]);
  assert.deepEqual(inkWords(ink, 120, 40, { x0: 0, y0: 31, x1: 120, y1: 40 }), [], 'no ink, no words');
});
