// The check-box shape on drawn pages: hollow squares found, empty or ticked; what only looks like one (a
// bullet, a ring, a square open on one side, a ruled grid's cells, a speck) not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blankImage, type GrayImage } from '../gray-image';
import { findCheckBoxes } from './check-boxes';

const LINE = 40;

function fill(img: GrayImage, x0: number, y0: number, x1: number, y1: number, value = 0): void {
  for (let y = y0; y < y1; y++) img.data.fill(value, y * img.width + x0, y * img.width + x1);
}

/**
 * A square of `side` pixels with rules `rule` pixels wide; `open` leaves one side undrawn; `faint` is the grey
 * of its right and bottom rules, as a scan blurs thin lines one way.
 */
function square(img: GrayImage, x: number, y: number, side: number, rule = 2, open: 'right' | null = null, faint = 0): void {
  fill(img, x, y, x + side, y + rule);
  fill(img, x, y, x + rule, y + side);
  fill(img, x + rule, y + side - rule, x + side, y + side, faint);
  if (open !== 'right') fill(img, x + side - rule, y, x + side, y + side - rule, faint);
}

test('an empty box and a ticked one are found, with their bounds', () => {
  const img = blankImage(300, 100);
  square(img, 20, 30, 24);
  square(img, 120, 30, 24);
  for (let k = 6; k < 18; k++) fill(img, 120 + k, 30 + k, 120 + k + 2, 30 + k + 1);
  const found = findCheckBoxes(img, LINE);
  assert.deepEqual(found, [
    { box: { x0: 20, y0: 30, x1: 44, y1: 54 }, ticked: false },
    { box: { x0: 120, y0: 30, x1: 144, y1: 54 }, ticked: true },
  ]);
});

test('a box whose right and bottom rules print grey beside black text is found, and a tick darker than its rule', () => {
  const img = blankImage(300, 100);
  // Text whose strokes shade from black to grey at their edges, as a scan's do.
  for (let y = 30; y < 54; y++) fill(img, 60, y, 120, y + 1, (y - 30) * 7);
  square(img, 20, 30, 24, 2, null, 170);
  square(img, 160, 30, 24, 2, null, 170);
  for (let k = 4; k < 22; k++) fill(img, 160 + k, 30 + k, 160 + k + 2, 30 + k + 1);
  assert.deepEqual(findCheckBoxes(img, LINE), [
    { box: { x0: 20, y0: 30, x1: 44, y1: 54 }, ticked: false },
    { box: { x0: 160, y0: 30, x1: 184, y1: 54 }, ticked: true },
  ]);
});

test('a bullet, a ring, a square open on one side, a grid and a speck are not boxes', () => {
  const img = blankImage(600, 200);
  fill(img, 20, 30, 44, 54);
  for (let y = 0; y < 24; y++) {
    for (let x = 0; x < 24; x++) {
      const r = Math.hypot(x - 11.5, y - 11.5);
      if (r > 9.5 && r <= 12) img.data[(30 + y) * img.width + 80 + x] = 0;
    }
  }
  square(img, 140, 30, 24, 2, 'right');
  for (let k = 0; k < 4; k++) square(img, 200 + 22 * k, 30, 24);
  square(img, 400, 30, 8, 1);
  assert.deepEqual(findCheckBoxes(img, LINE), []);
});

test('a box far larger or smaller than the text is none', () => {
  const img = blankImage(300, 200);
  square(img, 20, 20, 90);
  square(img, 150, 20, 10);
  assert.deepEqual(findCheckBoxes(img, LINE), []);
  assert.equal(findCheckBoxes(img, 60).length, 1);
  assert.deepEqual(findCheckBoxes(img, 0), []);
});
