// Assembly of detected lines and regions into blocks, on lines placed here: paragraphs, columns and their
// reading order, headers and footers, tables and the text inside figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../../common/protocol';
import type { LayoutRegionGuess } from '../detect/layout-regions';
import { assemblePage, type FrameLine } from './page-layout';
import { Gutters, readingOrder } from './reading-order';

const H = 20;

/** A paragraph of `n` lines H high, 28 px apart, from x0 to x1 (its last line shorter). */
function paragraph(x0: number, x1: number, y0: number, n: number): FrameLine[] {
  return Array.from({ length: n }, (_, i) => ({ x0, y0: y0 + 28 * i, x1: i === n - 1 ? (x0 + x1) / 2 : x1, y1: y0 + 28 * i + H }));
}

const region = (label: LayoutRegionGuess['label'], box: Box, score = 0.9): LayoutRegionGuess => ({ label, box, score });

/** Each block's first line's top-left, in reading order. */
const starts = (blocks: ReturnType<typeof assemblePage>) => blocks.map((b) => b.lines[0] ? [b.lines[0].x0, b.lines[0].y0] : [b.box.x0, b.box.y0]);

test('two columns between a full-width title and a full-width closing paragraph are read column by column', () => {
  const title = [{ x0: 100, y0: 40, x1: 900, y1: 80 }];
  // Both columns break their paragraphs at the same height: a blank row across the page between full-width
  // blocks, which leave no gutter at the top level.
  const a = paragraph(100, 470, 150, 6);
  const b = paragraph(100, 470, 350, 6);
  const c = paragraph(530, 900, 150, 6);
  const d = paragraph(530, 900, 350, 6);
  const closing = paragraph(100, 900, 600, 3);
  const blocks = assemblePage([...d, ...closing, ...b, ...title, ...c, ...a], []);
  assert.deepEqual(starts(blocks), [[100, 40], [100, 150], [100, 350], [530, 150], [530, 350], [100, 600]]);
  assert.deepEqual(blocks.map((x) => x.order), [0, 1, 2, 3, 4, 5]);
});

test('lines of one row cut at a wide space are one paragraph, in reading order', () => {
  const label = { x0: 100, y0: 100, x1: 200, y1: 120 };
  const value = { x0: 215, y0: 101, x1: 400, y1: 121 };
  const next = { x0: 100, y0: 128, x1: 300, y1: 148 };
  const blocks = assemblePage([next, value, label], []);
  assert.equal(blocks.length, 1);
  assert.deepEqual(blocks[0]!.lines, [label, value, next]);
});

test('lines of tight leading, whose boxes overlap a little, are one paragraph', () => {
  const lines = [0, 1, 2].map((i) => ({ x0: 100, y0: 100 + 18 * i, x1: 600, y1: 122 + 18 * i }));
  assert.equal(assemblePage(lines, []).length, 1);
});

test('headers come first and footers last, whatever their place on the page', () => {
  const body = paragraph(100, 900, 200, 5);
  const header = { x0: 700, y0: 30, x1: 900, y1: 50 };
  const footer = { x0: 450, y0: 1300, x1: 550, y1: 1320 };
  const pageNumber = { x0: 880, y0: 1300, x1: 900, y1: 1320 };
  const blocks = assemblePage([...body, header, footer, pageNumber], [
    region('header', { x0: 690, y0: 25, x1: 905, y1: 55 }),
    region('footer', { x0: 440, y0: 1295, x1: 560, y1: 1325 }),
    region('footer', { x0: 870, y0: 1295, x1: 905, y1: 1325 }),
  ]);
  assert.deepEqual(blocks.map((b) => b.kind), ['header', 'text', 'footer', 'footer']);
});

test('a text region one line high where the detector found no line is read as that line; a taller one or one over a line is not', () => {
  const body = paragraph(100, 900, 200, 4);
  const pageNumber = region('title', { x0: 480, y0: 40, x1: 520, y1: 55 });
  const stamp = region('text', { x0: 100, y0: 600, x1: 300, y1: 700 });
  const overBody = region('text', { x0: 100, y0: 195, x1: 300, y1: 215 });
  const blocks = assemblePage(body, [pageNumber, stamp, overBody]);
  assert.deepEqual(blocks.map((b) => [b.kind, b.lines.length]), [['title', 1], ['text', 4]]);
  assert.deepEqual(blocks[0]!.lines[0], { x0: 480, y0: 40, x1: 520, y1: 55 });
});

test('a table region becomes a grid of its lines; where it overlaps a surer figure, the figure stands', () => {
  const cells = [0, 1, 2].flatMap((r) => [0, 1].map((c) => ({ x0: 100 + 200 * c, y0: 100 + 30 * r, x1: 180 + 200 * c, y1: 120 + 30 * r })));
  const table = assemblePage(cells, [region('table', { x0: 90, y0: 90, x1: 400, y1: 190 })]);
  assert.equal(table.length, 1);
  assert.equal(table[0]!.kind, 'table');
  assert.deepEqual([table[0]!.grid!.rows, table[0]!.grid!.cols, table[0]!.grid!.cells.length], [3, 2, 6]);
  const both = assemblePage(cells, [region('table', { x0: 90, y0: 90, x1: 400, y1: 190 }, 0.6), region('figure', { x0: 85, y0: 85, x1: 405, y1: 195 }, 0.8)]);
  assert.deepEqual(both.map((b) => b.kind), ['figure', 'text', 'text']);
});

test('the text inside a figure is read in paragraphs right after it; a figure with none is written alone', () => {
  const before = paragraph(100, 900, 40, 2);
  const labels = [...paragraph(200, 400, 300, 2), ...paragraph(600, 800, 300, 2)];
  const after = paragraph(100, 900, 700, 2);
  const blocks = assemblePage([...after, ...labels, ...before], [
    region('figure', { x0: 150, y0: 150, x1: 850, y1: 600 }),
    region('figure', { x0: 100, y0: 800, x1: 500, y1: 1100 }),
  ]);
  assert.deepEqual(blocks.map((b) => b.kind), ['text', 'figure', 'text', 'text', 'text', 'figure']);
  assert.deepEqual(starts(blocks).slice(2, 4), [[200, 300], [600, 300]]);
  assert.equal(blocks[5]!.lines.length, 0);
});

test('XY-cut reads a two-column page column by column, after a full-width title', () => {
  const boxes: Box[] = [
    { x0: 520, y0: 100, x1: 1000, y1: 400 }, // right column, top
    { x0: 0, y0: 100, x1: 480, y1: 300 }, // left column, top
    { x0: 0, y0: 0, x1: 1000, y1: 60 }, // title across both
    { x0: 0, y0: 320, x1: 480, y1: 600 }, // left column, bottom (shares a blank row with the right column)
    { x0: 520, y0: 420, x1: 1000, y1: 600 }, // right column, bottom
  ];
  assert.deepEqual(readingOrder(boxes, Gutters.wide(10)), [2, 1, 3, 0, 4]);
});

/** Lines H high, 24 px apart, from x0 to x1: a column of justified prose. */
const column = (x0: number, x1: number, y0: number, n: number): FrameLine[] =>
  Array.from({ length: n }, (_, i) => ({ x0, y0: y0 + 24 * i, x1, y1: y0 + 24 * i + H }));

test('two columns of prose 12 px apart, under a spanning caption, in one text region are read column by column', () => {
  const caption = { x0: 100, y0: 60, x1: 700, y1: 80 };
  const left = column(100, 394, 100, 8);
  const right = column(406, 700, 100, 8);
  const blocks = assemblePage([...right, caption, ...left], [region('text', { x0: 95, y0: 55, x1: 705, y1: 300 })]);
  assert.equal(blocks.length, 1);
  assert.deepEqual(blocks[0]!.lines, [caption, ...left, ...right]);
});

test('three columns of prose 3 px apart, which no region claims, are three paragraphs in column order', () => {
  const cols = [column(100, 397, 100, 10), column(400, 697, 100, 10), column(700, 997, 100, 10)];
  const blocks = assemblePage([...cols[2]!, ...cols[0]!, ...cols[1]!], []);
  assert.deepEqual(blocks.map((b) => b.lines), cols);
});

test('a form\'s short labels beside their aligned values are read row by row, not as columns', () => {
  const labels = ['Name', 'Date of birth', 'Address', 'Phone', 'Signature'].map((w, i) => ({ x0: 100, y0: 100 + 30 * i, x1: 100 + 12 * w.length, y1: 120 + 30 * i }));
  const values = labels.map((l) => ({ x0: 270, y0: l.y0, x1: 700, y1: l.y1 }));
  const blocks = assemblePage([...values, ...labels], [region('text', { x0: 95, y0: 95, x1: 705, y1: 245 })]);
  assert.equal(blocks.length, 1);
  assert.deepEqual(blocks[0]!.lines, labels.flatMap((l, i) => [l, values[i]!]));
});
