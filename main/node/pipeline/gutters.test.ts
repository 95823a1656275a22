// Column gutters narrower than the gap that joins words into a line, on pages drawn here: glyph-like marks on a
// white page, x-height letters with a taller first letter per word, as a low-resolution newspaper has them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../common/protocol';
import { blankImage, type GrayImage } from './gray-image';
import { analysePage } from './page-analysis';

/** Letter and capital heights: line grouping joins gaps up to 1.5 capitals (18 px), a gutter here is 15 px. */
const SMALL = 8;
const CAPITAL = 12;
const LETTER = 6;
const GUTTER = 15;

function ink(img: GrayImage, x: number, y0: number, y1: number): void {
  for (let y = y0; y < y1; y++) img.data.fill(0, y * img.width + x, y * img.width + x + LETTER);
}

/**
 * Inks one line of words on the baseline `base`, from x0 to x1: words of 3 to 6 letters (a capital first)
 * with 6 px spaces; `justified` puts a last letter flush at x1. Word lengths vary with `seed` so word spaces
 * of neighbouring lines do not line up.
 */
function drawLine(img: GrayImage, x0: number, x1: number, base: number, seed: number, justified = true): Box {
  let x = x0;
  for (let w = 0; x + LETTER <= x1 - LETTER; w++) {
    const letters = 3 + ((seed * 7 + w * 5) % 4);
    for (let n = 0; n < letters && x + LETTER <= x1 - LETTER; n++, x += LETTER + 2) {
      ink(img, x, base - (n === 0 ? CAPITAL : SMALL), base);
    }
    x += 4;
  }
  if (justified) ink(img, x1 - LETTER, base - SMALL, base);
  return { x0, y0: base - CAPITAL, x1: justified ? x1 : x, y1: base };
}

/** Inks a justified paragraph (its last line short) at 20 px leading; returns its box. */
function drawParagraph(img: GrayImage, x0: number, x1: number, top: number, lines: number): Box {
  for (let i = 0; i < lines; i++) drawLine(img, x0, i === lines - 1 ? (x0 + x1) / 2 : x1, top + CAPITAL + 20 * i, top + i);
  return { x0, y0: top, x1, y1: top + CAPITAL + 20 * (lines - 1) };
}

const readRegions = (img: GrayImage) => {
  const page = analysePage(0, img);
  return page.blocks.filter((b) => b.order !== null).sort((p, q) => p.order! - q.order!);
};
const near = (r: Box, t: Box) => Math.abs(r.x0 - t.x0) < CAPITAL && Math.abs(r.y0 - t.y0) < CAPITAL && Math.abs(r.x1 - t.x1) < CAPITAL;

test('columns with gutters narrower than a word-joining gap are found and read column by column', () => {
  const img = blankImage(1000, 1000);
  // A running header whose word space lines up with the gutter below, set apart by more than the leading.
  const header = { ...drawLine(img, 60, 484, 52, 0), x1: drawLine(img, 494, 915, 52, 1).x1 };
  const left = [60, 480];
  const right = [left[1]! + GUTTER, 915];
  const twoColumns = [
    drawParagraph(img, left[0]!, left[1]!, 90, 7),
    drawParagraph(img, left[0]!, left[1]!, 240, 8),
    drawParagraph(img, right[0]!, right[1]!, 90, 9),
    drawParagraph(img, right[0]!, right[1]!, 280, 6),
  ];
  const third = (k: number) => [60 + k * (280 + GUTTER), 60 + k * (280 + GUTTER) + 280];
  const threeColumns = [0, 1, 2].map((k) => drawParagraph(img, third(k)[0]!, third(k)[1]!, 480, 12));
  const read = readRegions(img);
  const order = [...twoColumns, ...threeColumns].map((t) => read.findIndex((r) => near(r.box, t)));
  assert.ok(order.every((i) => i >= 0), `paragraphs ${order}; regions ${JSON.stringify(read.map((r) => r.box))}`);
  assert.deepEqual([...order].sort((p, q) => p - q), order, `paragraphs read as ${order}`);
  assert.ok(read.some((r) => r.lines.some((l) => near(l, header))), 'the running header stays one line');
});

test('word spaces lined up over a few lines and a numbered list are not cut into columns', () => {
  const img = blankImage(1000, 1000);
  // Five lines whose word spaces (10 px, flush on both sides) line up: fewer lines than a column has.
  const spaced = [0, 1, 2, 3, 4].map((i) => ({ ...drawLine(img, 60, 400, 112 + 20 * i, i), x1: drawLine(img, 410, 915, 112 + 20 * i, i + 3).x1 }));
  // A list: numbers, then their hanging text flush at one indent, over more lines than a column needs.
  const items: Box[] = [];
  for (let i = 0, base = 312; i < 8; i++, base += 20) {
    ink(img, 60, base - CAPITAL, base);
    ink(img, 68, base - 2, base);
    items.push({ ...drawLine(img, 84, 915, base, i), x0: 60 });
    if (i % 2 === 1) drawLine(img, 84, 915, (base += 20), i + 1);
  }
  const lines = readRegions(img).flatMap((r) => r.lines);
  for (const t of [...spaced, ...items]) assert.ok(lines.some((l) => near(l, t)), `line ${JSON.stringify(t)} was cut`);
});
