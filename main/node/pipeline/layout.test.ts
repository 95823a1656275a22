// Layout measured against the generator's region ground truth (test/fixtures/pages, made by
// scripts/make_samples.py), and page preparation against pages turned, tilted, darkened and faded on purpose.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import type { Box } from '../../../common/protocol';
import { readingOrderEdit } from '../eval/reading-order-metric';
import type { GrayImage } from './gray-image';
import { analyseLayout } from './layout';
import { analysePage } from './page-analysis';
import { binarise, otsuThreshold, preparePage } from './prepare';
import { readingOrder } from './reading-order';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'pages');

interface Truth {
  width: number;
  height: number;
  regions: Array<{ box: [number, number, number, number]; kind: string; order: number | null }>;
}

async function gray(input: Buffer | string, transform?: (s: sharp.Sharp) => sharp.Sharp): Promise<GrayImage> {
  const s = sharp(input).grayscale();
  const { data, info } = await (transform ? transform(s) : s).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height) };
}

const fixtures = readdirSync(FIXTURES).filter((f) => /^page-\d+\.json$/.test(f)).sort();
const toBox = (b: [number, number, number, number]): Box => ({ x0: b[0], y0: b[1], x1: b[2], y1: b[3] });

test('reading order follows the ground truth on generated pages (one and two columns)', async () => {
  assert.ok(fixtures.length >= 6, 'fixtures missing: run scripts/make_samples.py');
  const edits: number[] = [];
  let matched = 0;
  let total = 0;
  for (const f of fixtures) {
    const truth = JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Truth;
    const page = analysePage(0, await gray(join(FIXTURES, f.replace('.json', '.jpg'))));
    const read = truth.regions.filter((r) => r.order !== null && r.kind !== 'header' && r.kind !== 'footer').map((r) => toBox(r.box));
    const predicted = page.regions.filter((r) => r.order !== null).sort((a, b) => a.order! - b.order!).map((r) => r.box);
    const score = readingOrderEdit(read, predicted);
    edits.push(score.edit);
    matched += score.matched;
    total += score.total;
  }
  const mean = edits.reduce((a, b) => a + b, 0) / edits.length;
  assert.ok(mean <= 0.2, `mean reading-order edit ${mean.toFixed(3)} (per page ${edits.map((e) => e.toFixed(2)).join(' ')})`);
  assert.ok(matched / total >= 0.9, `only ${matched}/${total} ground-truth blocks covered by a region`);
});

test('XY-cut reads a two-column page column by column, after a full-width title', () => {
  const boxes: Box[] = [
    { x0: 520, y0: 100, x1: 1000, y1: 400 }, // right column, top
    { x0: 0, y0: 100, x1: 480, y1: 300 }, // left column, top
    { x0: 0, y0: 0, x1: 1000, y1: 60 }, // title across both
    { x0: 0, y0: 320, x1: 480, y1: 600 }, // left column, bottom (shares a blank row with the right column)
    { x0: 520, y0: 420, x1: 1000, y1: 600 }, // right column, bottom
  ];
  assert.deepEqual(readingOrder(boxes, 10), [2, 1, 3, 0, 4]);
});

test('skew is measured and removed', async () => {
  const path = join(FIXTURES, fixtures[1]!.replace('.json', '.jpg'));
  const tilted = await gray(path, (s) => s.rotate(2.5, { background: '#ffffff' }));
  const prepared = preparePage(tilted);
  assert.ok(Math.abs(prepared.skewDegrees - 2.5) <= 0.3, `measured ${prepared.skewDegrees} degrees`);
  assert.ok(Math.abs(preparePage(await gray(path)).skewDegrees) < 0.5, 'a level page stays level');
});

test('a page scanned a quarter turn off is turned back, and its boxes map to the source', async () => {
  const path = join(FIXTURES, fixtures[2]!.replace('.json', '.jpg'));
  const upright = await gray(path);
  const turned = await gray(path, (s) => s.rotate(90));
  const prepared = preparePage(turned);
  assert.equal(prepared.quarterTurns, 1);
  const lines = (p: ReturnType<typeof preparePage>) => analyseLayout(p.ink, p.gray.width, p.gray.height).blocks.reduce((n, b) => n + b.lines.length, 0);
  const expected = lines(preparePage(upright));
  assert.ok(Math.abs(lines(prepared) - expected) <= 0.15 * expected, `${lines(prepared)} lines turned vs ${expected} upright`);
  const page = analysePage(0, turned);
  for (const r of page.regions) assert.ok(r.box.x1 <= turned.width && r.box.y1 <= turned.height, JSON.stringify(r.box));
});

test('dark and faint scans give the same text lines as the clean page', async () => {
  const path = join(FIXTURES, fixtures[3]!.replace('.json', '.jpg'));
  const count = (img: GrayImage) => {
    const p = preparePage(img);
    return analyseLayout(p.ink, p.gray.width, p.gray.height).blocks.reduce((n, b) => n + b.lines.length, 0);
  };
  const clean = count(await gray(path));
  const dark = count(await gray(path, (s) => s.linear(0.35, 20)));
  const faint = count(await gray(path, (s) => s.linear(0.3, 175)));
  for (const [name, n] of [['dark', dark], ['faint', faint]] as const) {
    assert.ok(Math.abs(n - clean) <= 0.1 * clean, `${name}: ${n} lines vs ${clean} clean`);
  }
});

// A real scan (the development set's licence allows evaluation only, so it is read from where it lies, never
// copied): a dot-matrix receipt whose grey dots fall apart into specks at Otsu's threshold.
const DOT_MATRIX_RECEIPT = '/work/shared/data/real-dev/sroie-receipts/images/600.jpg';

const NO_RECEIPT = existsSync(DOT_MATRIX_RECEIPT) ? false : `${DOT_MATRIX_RECEIPT} is absent (the development scans)`;

test('a dot-matrix receipt lays out as its lines, not as its dots', { skip: NO_RECEIPT }, async () => {
  const p = preparePage(await gray(DOT_MATRIX_RECEIPT));
  const layout = analyseLayout(p.ink, p.gray.width, p.gray.height);
  const lines = layout.blocks.reduce((n, b) => n + b.lines.length, 0);
  // Its ground truth has 49 lines (some side by side on the page); the specks made 437.
  assert.ok(lines >= 30 && lines <= 60, `${lines} lines`);
  assert.ok(layout.charHeight >= 15, `letter height ${layout.charHeight} px: the dots' height, not the letters'`);
});

test('white text on a dark band reads as the black text it was; a white box inside the band keeps its polarity', async () => {
  const path = join(FIXTURES, fixtures[5]!.replace('.json', '.jpg'));
  const page = await gray(path);
  const { width, height } = page;
  // The band covers the text above the figure; the box, inside it, a few of its lines.
  const band = { x0: Math.round(0.04 * width), y0: Math.round(0.1 * height), x1: Math.round(0.96 * width), y1: Math.round(0.38 * height) };
  const box = { x0: Math.round(0.1 * width), y0: Math.round(0.2 * height), x1: Math.round(0.6 * width), y1: Math.round(0.27 * height) };
  const inside = (b: Box, x: number, y: number) => x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1;
  const reversed = { width, height, data: page.data.map((v, i) => {
    const x = i % width;
    const y = Math.floor(i / width);
    return inside(band, x, y) && !inside(box, x, y) ? 255 - v : v;
  }) };
  const lines = (img: GrayImage) => {
    const p = preparePage(img);
    return analyseLayout(p.ink, p.gray.width, p.gray.height).blocks.flatMap((b) => b.lines).filter((l) => inside(band, l.x0, l.y0));
  };
  const expected = lines(page).length;
  assert.ok(expected >= 8, `the fixture should have text in the band (${expected} lines)`);
  const got = lines(reversed).length;
  assert.ok(Math.abs(got - expected) <= 0.15 * expected, `${got} lines in the reversed band vs ${expected} on the plain page`);
  // The white box was not turned: its text is ink, not its paper.
  const prepared = preparePage(reversed);
  let ink = 0;
  for (let y = box.y0 + 5; y < box.y1 - 5; y++) for (let x = box.x0 + 5; x < box.x1 - 5; x++) ink += prepared.ink[y * width + x]!;
  assert.ok(ink < 0.3 * (box.x1 - box.x0) * (box.y1 - box.y0), `the white box came out ${ink} pixels of ink`);
});

test('thin grey print beside bold rules is ink, though Otsu splits the rules from everything else', () => {
  const width = 400;
  const height = 200;
  const data = new Uint8Array(width * height).fill(255);
  // Thick black rules: a fifth of the page.
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (y % 25 < 5) data[y * width + x] = 0;
  // Rows of 4 x 6 letters in light grey between the rules.
  for (let row = 0; row < 8; row++) {
    for (let g = 0; g < 40; g++) {
      for (let y = 25 * row + 10; y < 25 * row + 16; y++) for (let x = 10 + 9 * g; x < 14 + 9 * g; x++) data[y * width + x] = 175;
    }
  }
  const img = { width, height, data };
  assert.ok(otsuThreshold(img) < 175, 'the case needs Otsu to miss the grey letters');
  const ink = binarise(img);
  assert.equal(ink[12 * width + 11], 1, 'a grey letter is ink');
  assert.equal(ink[20 * width + 11], 0, 'paper stays paper');
  // A page of black letters keeps Otsu's split.
  const black = { width, height, data: data.map((v) => (v === 175 ? 0 : v)) };
  const t = otsuThreshold(black);
  assert.deepEqual(binarise(black), black.data.map((v) => (v <= t ? 1 : 0)));
});

test('a banner with letters cut out of it is a figure, a ruled grid of the same size with text a table', () => {
  const width = 600;
  const height = 400;
  const page = (draw: (x: number, y: number) => boolean): Uint8Array => {
    const ink = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) ink[y * width + x] = draw(x, y) ? 1 : 0;
    // Body text, so the page has a character height: rows of 8 x 10 glyphs below the shape.
    for (let row = 0; row < 4; row++) {
      for (let g = 0; g < 30; g++) {
        for (let y = 300 + row * 20; y < 310 + row * 20; y++) for (let x = 40 + g * 12; x < 48 + g * 12; x++) ink[y * width + x] = 1;
      }
    }
    return ink;
  };
  const inShape = (x: number, y: number) => x >= 100 && x < 500 && y >= 40 && y < 240;
  // Two rows of 10 x 40 letters knocked out of a solid box.
  const letter = (x: number, y: number) => ((y >= 80 && y < 120) || (y >= 160 && y < 200)) && (x - 120) % 30 < 10 && x >= 120 && x < 480;
  const banner = analyseLayout(page((x, y) => inShape(x, y) && !letter(x, y)), width, height);
  // The grid's cells hold a 8 x 10 glyph each; without text it would be a drawing.
  const cellGlyph = (x: number, y: number) => (y - 40) % 50 >= 20 && (y - 40) % 50 < 30 && (x - 100) % 100 >= 40 && (x - 100) % 100 < 48;
  const grid = analyseLayout(page((x, y) => inShape(x, y) && ((y - 40) % 50 === 0 || y === 239 || (x - 100) % 100 === 0 || x === 499 || cellGlyph(x, y))), width, height);
  const kindAt = (l: ReturnType<typeof analyseLayout>) => l.blocks.find((b) => b.box.x0 <= 110 && b.box.x1 >= 490 && b.box.y0 <= 50)?.kind;
  assert.equal(kindAt(banner), 'figure');
  assert.equal(kindAt(grid), 'table');
  const empty = analyseLayout(page((x, y) => inShape(x, y) && ((y - 40) % 50 === 0 || y === 239 || (x - 100) % 100 === 0 || x === 499)), width, height);
  assert.equal(kindAt(empty), 'figure', 'rules with nothing between them are a drawing');
});

test('text inside a plain frame is read; a frame around a chart is the chart\'s', () => {
  const width = 600;
  const height = 400;
  const page = (inside: (x: number, y: number) => boolean): Uint8Array => {
    const ink = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        // A frame 3 px thick, 100..500 x 40..240.
        const frame = x >= 100 && x < 500 && y >= 40 && y < 240 && (x < 103 || x >= 497 || y < 43 || y >= 237);
        ink[y * width + x] = frame || inside(x, y) ? 1 : 0;
      }
    }
    // Body text below the frame, so the page has a character height.
    for (let row = 0; row < 4; row++) {
      for (let g = 0; g < 30; g++) {
        for (let y = 300 + row * 20; y < 310 + row * 20; y++) for (let x = 40 + g * 12; x < 48 + g * 12; x++) ink[y * width + x] = 1;
      }
    }
    return ink;
  };
  // Three rows of 8 x 10 glyphs inside the frame.
  const text = (x: number, y: number) => [80, 110, 140].some((r) => y >= r && y < r + 10) && x >= 130 && x < 460 && (x - 130) % 12 < 8;
  // A curve inside the frame (the frame is the chart's axes).
  const chart = (x: number, y: number) => x >= 140 && x < 460 && Math.abs(y - (140 + 60 * Math.sin(x / 30))) < 2;
  const boxed = analyseLayout(page(text), width, height);
  assert.ok(!boxed.blocks.some((b) => b.kind === 'figure' || b.kind === 'table'), JSON.stringify(boxed.blocks.map((b) => b.kind)));
  const framedLines = boxed.blocks.flatMap((b) => b.lines).filter((l) => l.y0 >= 40 && l.y1 <= 240);
  assert.equal(framedLines.length, 3);
  const plotted = analyseLayout(page(chart), width, height);
  assert.ok(plotted.blocks.some((b) => b.kind === 'figure' && b.box.x0 <= 100 && b.box.x1 >= 499), JSON.stringify(plotted.blocks.map((b) => [b.kind, b.box])));
});

test('a row of dashes and a lone upright connector are drawings, not text lines', () => {
  const width = 600;
  const height = 300;
  const ink = new Uint8Array(width * height);
  const fill = (x0: number, y0: number, x1: number, y1: number) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) ink[y * width + x] = 1;
  };
  // Four lines of 8 x 10 glyphs (the page's character height), then a dashed separator, then a connector.
  for (let row = 0; row < 4; row++) for (let g = 0; g < 30; g++) fill(40 + g * 12, 20 + row * 20, 48 + g * 12, 30 + row * 20);
  for (let g = 0; g < 25; g++) fill(40 + g * 14, 120, 48 + g * 14, 123);
  fill(300, 160, 303, 200);
  // The same dashes as a word's worth of short strokes: "- -" stays a line worth reading.
  fill(40, 240, 46, 243);
  fill(50, 240, 56, 243);
  const lines = analyseLayout(ink, width, height).blocks.flatMap((b) => b.lines);
  assert.equal(lines.filter((l) => l.y0 < 100).length, 4);
  assert.ok(!lines.some((l) => l.y0 >= 115 && l.y1 <= 205), JSON.stringify(lines));
  assert.ok(lines.some((l) => l.y0 >= 235 && l.y1 <= 245));
});
