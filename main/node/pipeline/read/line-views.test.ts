import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GrayImage } from '../gray-image';
import { firstLineViews, LINE_VIEWS, lineView } from './line-views';
import { gaussianBlur3, resample } from '../resample';

const image = (width: number, height: number, values: number[]): GrayImage => ({ width, height, data: Uint8Array.from(values) });

test('shrinking averages each output pixel\'s footprint, fractional edges weighed by their share', () => {
  assert.deepEqual([...resample(image(4, 2, [0, 100, 200, 40, 50, 150, 0, 80]), 2, 1).data], [75, 80]);
  // Three pixels into two: 0 and half of 90, then the other half of 90 and 30.
  assert.deepEqual([...resample(image(3, 1, [0, 90, 30]), 2, 1).data], [30, 50]);
});

test('enlarging is bilinear with half-pixel centres, clamped at the edges', () => {
  assert.deepEqual([...resample(image(2, 1, [0, 100]), 4, 1).data], [0, 25, 75, 100]);
  assert.deepEqual([...resample(image(1, 2, [40, 80]), 1, 4).data], [40, 50, 70, 80]);
});

test('the 3x3 Gaussian spreads a dot by its weights, keeps flat areas flat and mirrors at the borders', () => {
  const dot = new Array(25).fill(0);
  dot[12] = 255;
  const out = gaussianBlur3(image(5, 5, dot), 0.8);
  const side = Math.exp(-1 / (2 * 0.64)) / (1 + 2 * Math.exp(-1 / (2 * 0.64)));
  const centre = 1 / (1 + 2 * Math.exp(-1 / (2 * 0.64)));
  assert.equal(out.data[12], Math.round(255 * centre * centre));
  assert.equal(out.data[7], Math.round(255 * centre * side));
  assert.equal(out.data[6], Math.round(255 * side * side));
  assert.equal(out.data[0], 0);
  assert.ok(gaussianBlur3(image(3, 2, [9, 9, 9, 9, 9, 9]), 0.8).data.every((v) => v === 9));
  // Mirrored without repeating the edge: the edge pixel's outer neighbour is its inner one.
  const edge = gaussianBlur3(image(3, 1, [0, 90, 0]), 0.8);
  assert.equal(edge.data[0], Math.round(2 * side * 90));
});

test('a line view is its height tall and as wide as the stretched aspect ratio, on the 8-pixel grid', () => {
  const crop = image(200, 40, new Array(8000).fill(200));
  for (const view of LINE_VIEWS) {
    const v = lineView(crop, view);
    assert.equal(v.height, view.height);
    assert.equal(v.width % 8, 0);
    assert.ok(Math.abs(v.width - (200 * view.height * view.stretch) / 40) <= 4, `${v.width} for ${JSON.stringify(view)}`);
    assert.ok(v.data.every((x) => x === 200));
  }
  assert.deepEqual(firstLineViews('1'), LINE_VIEWS.slice(0, 1));
  assert.throws(() => firstLineViews('0'), /--views must be a whole number from 1 to 2, not 0/);
  assert.throws(() => firstLineViews(' 1'), /--views must be a whole number from 1 to 2, not  1/);
  assert.throws(() => firstLineViews('two'), /--views/);
});
