// Reading order on a page drawn here: glyph-sized marks on a white page, laid out and ordered by the pipeline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../common/protocol';
import { blankImage, type GrayImage } from './gray-image';
import { analysePage } from './page-analysis';

const GLYPH = 12;

/** Inks one text line of glyph-sized marks (words of five) from x0 to x1, `height` tall, at y0. */
function drawLine(img: GrayImage, x0: number, x1: number, y0: number, height = GLYPH): void {
  for (let x = x0, n = 0; x + 8 <= x1; x += n % 5 === 4 ? 18 : 11, n++) {
    for (let y = y0; y < y0 + height; y++) img.data.fill(0, y * img.width + x, y * img.width + x + 8);
  }
}

/** Inks a paragraph of `lines` lines and returns its box. */
function drawParagraph(img: GrayImage, x0: number, x1: number, y0: number, lines: number): Box {
  for (let i = 0; i < lines; i++) drawLine(img, x0, x1, y0 + 20 * i, GLYPH);
  return { x0, y0, x1, y1: y0 + 20 * (lines - 1) + GLYPH };
}

test('two columns between a full-width title and a full-width closing paragraph are read column by column', () => {
  const img = blankImage(1000, 1000);
  drawLine(img, 100, 900, 60, 2 * GLYPH);
  // Both columns break their paragraphs at the same height: a blank row across the page, between full-width
  // blocks that leave no gutter at the top level.
  const a = drawParagraph(img, 100, 470, 150, 8);
  const b = drawParagraph(img, 100, 470, 350, 8);
  const c = drawParagraph(img, 530, 900, 150, 8);
  const d = drawParagraph(img, 530, 900, 350, 8);
  const closing = drawParagraph(img, 100, 900, 600, 3);
  const page = analysePage(0, img);
  const read = page.regions.filter((r) => r.order !== null).sort((p, q) => p.order! - q.order!);
  const near = (r: Box, t: Box) => Math.abs(r.x0 - t.x0) < GLYPH && Math.abs(r.y0 - t.y0) < GLYPH;
  const order = [a, b, c, d, closing].map((t) => read.findIndex((r) => near(r.box, t)));
  assert.ok(order.every((i) => i >= 0), `regions ${JSON.stringify(read.map((r) => r.box))}`);
  assert.deepEqual([...order].sort((p, q) => p - q), order, `blocks a, b, c, d, closing read as ${order}`);
});
