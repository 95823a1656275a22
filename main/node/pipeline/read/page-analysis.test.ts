// Page analysis on the real page-analysis networks: reading order against the generator's region ground truth
// (test/fixtures/pages, made by scripts/make_samples.py), and bad pages (turned, skewed, low resolution, blank,
// a photograph) found and read, with the real reader for the words.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { sharp } from '../../inputs/image-codec';
import { DEFAULT_DECODE_OPTIONS } from '../../../../common/engine-types';
import type { Box } from '../../../../common/protocol';
import { readingOrderEdit } from '../../eval/reading-order-metric';
import { defaultModelDir, loadAddon, type NativeModel } from '../../engine/native-addon';
import { pageNets } from '../detect/page-nets';
import type { GrayImage } from '../gray-image';
import { MAX_PAGE_PIXELS, openPageSource } from '../source/page-source';
import { analysePage, type AnalysedPage } from './page-analysis';

const ROOT = join(__dirname, '..', '..', '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'pages');

interface Truth {
  width: number;
  height: number;
  regions: Array<{ box: [number, number, number, number]; kind: string; order: number | null }>;
}

async function grey(input: Buffer | string, transform?: (s: sharp.Sharp) => sharp.Sharp): Promise<GrayImage> {
  const s = sharp(input).grayscale();
  const { data, info } = await (transform ? transform(s) : s).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height) };
}

const fixtures = readdirSync(FIXTURES).filter((f) => /^page-\d+\.json$/.test(f)).sort();
const toBox = (b: [number, number, number, number]): Box => ({ x0: b[0], y0: b[1], x1: b[2], y1: b[3] });
/** An angle in whole degrees, in (-180, 180]. */
const degrees = (a: number) => {
  const d = ((Math.round((a * 180) / Math.PI) % 360) + 360) % 360;
  return d > 180 ? d - 360 : d;
};

let model: NativeModel | null = null;
async function reader(): Promise<NativeModel> {
  model ??= await loadAddon().loadModel(defaultModelDir(), { threads: 2 });
  return model;
}
after(() => model?.close());

/** The words of the page's title line (its first crop in reading order), read by the real model. */
async function titleWords(page: AnalysedPage): Promise<string> {
  const crop = page.crops[0]!;
  const run = (await reader()).decode([crop.views[0]!], { ...DEFAULT_DECODE_OPTIONS, mode: 'ar', maxNewTokens: 64 }, () => {});
  return (await run.promise).regions[0]!.text.trim();
}

test('reading order follows the ground truth on generated pages (one and two columns)', async () => {
  assert.ok(fixtures.length >= 6, 'fixtures missing: run scripts/make_samples.py');
  const nets = await pageNets();
  const edits: number[] = [];
  let matched = 0;
  let total = 0;
  for (const f of fixtures) {
    const truth = JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Truth;
    const page = await analysePage(0, await grey(join(FIXTURES, f.replace('.json', '.jpg'))), nets);
    const read = truth.regions.filter((r) => r.order !== null && r.kind !== 'header' && r.kind !== 'footer').map((r) => toBox(r.box));
    const predicted = page.regions.filter((r) => r.order !== null && r.kind !== 'figure').sort((a, b) => a.order! - b.order!).map((r) => r.box);
    const score = readingOrderEdit(read, predicted);
    edits.push(score.edit);
    matched += score.matched;
    total += score.total;
  }
  const mean = edits.reduce((a, b) => a + b, 0) / edits.length;
  assert.ok(mean <= 0.2, `mean reading-order edit ${mean.toFixed(3)} (per page ${edits.map((e) => e.toFixed(2)).join(' ')})`);
  assert.ok(matched / total >= 0.9, `only ${matched}/${total} ground-truth blocks covered by a region`);
});

test('a page turned a quarter either way, half a turn or skewed 5 degrees reads as it does upright', async () => {
  const nets = await pageNets();
  const file = join(FIXTURES, 'page-101.jpg');
  const upright = await analysePage(0, await grey(file), nets);
  assert.equal(degrees(upright.angle), 0);
  const title = await titleWords(upright);
  assert.match(title, /OBLIGATIONS/);
  for (const [turn, expected] of [[90, 90], [180, 180], [270, -90], [5, 5]] as const) {
    const page = await analysePage(0, await grey(file, (s) => s.rotate(turn, { background: '#ffffff' })), nets);
    assert.equal(degrees(page.angle), expected, `turned ${turn}`);
    assert.ok(Math.abs(page.crops.length - upright.crops.length) <= 0.1 * upright.crops.length, `turned ${turn}: ${page.crops.length} crops, upright ${upright.crops.length}`);
    assert.equal(await titleWords(page), title, `turned ${turn}`);
  }
});

test('a 100-dpi fax of a page still yields its lines', async () => {
  const nets = await pageNets();
  const file = join(FIXTURES, 'page-101.jpg');
  const upright = await analysePage(0, await grey(file), nets);
  // The fixture is a letter page about 1,100 pixels wide (130 dpi); a 100-dpi fax of it is 850 wide, in black and white.
  const fax = await analysePage(0, await grey(file, (s) => s.resize({ width: 850 }).threshold(160)), nets);
  const lines = (p: AnalysedPage) => p.crops.filter((c) => c.kind === 'text').length;
  assert.ok(lines(fax) >= 0.9 * lines(upright), `${lines(fax)} lines in the fax, ${lines(upright)} in the page`);
  assert.match(await titleWords(fax), /OBLIGATIONS/);
});

test('a 10,000-pixel poster is worked at the page budget and its lines are found', async () => {
  const width = 10_000;
  const height = 7_000;
  const words = ['GRAND OPENING', 'Saturday 14 June', 'Music, food and games for everyone'];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="white"/>`
    + words.map((w, i) => `<text x="800" y="${1500 + 1600 * i}" font-family="DejaVu Sans" font-size="${700 - 150 * i}">${w}</text>`).join('') + '</svg>';
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const source = await openPageSource(new Uint8Array(png));
  const info = source.pages[0]!;
  assert.ok(info.width * info.height <= MAX_PAGE_PIXELS && info.width < width, `worked at ${info.width} x ${info.height}`);
  const page = await analysePage(0, await source.render(0), await pageNets());
  source.close();
  assert.ok(page.crops.length >= words.length, `${page.crops.length} lines`);
  assert.match(await titleWords(page), /GRAND OPENING/);
});

test('a blank page gives no lines and nothing to read', async () => {
  const page = await analysePage(0, { width: 1200, height: 1600, data: new Uint8Array(1200 * 1600).fill(250) }, await pageNets());
  assert.equal(page.crops.length, 0);
  assert.equal(page.regions.filter((r) => r.kind !== 'figure').length, 0);
});

test('a photograph with no text in it is a figure written as an image, and nothing is read from it', async () => {
  // Smooth shapes and a gradient, as a photo's tones: nothing the detector should take for a line.
  const w = 1200;
  const h = 900;
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const blob = Math.hypot(x - 400, y - 450) < 250 ? 60 : Math.hypot(x - 850, y - 300) < 180 ? 120 : 0;
      data[y * w + x] = Math.max(0, Math.min(255, 200 - blob - (x + y) / 20 + 20 * Math.sin(x / 37) * Math.cos(y / 53)));
    }
  }
  const page = await analysePage(0, { width: w, height: h, data }, await pageNets());
  assert.equal(page.crops.length, 0, JSON.stringify(page.crops.map((c) => c.box)));
  assert.deepEqual(page.regions.map((r) => r.kind), ['figure']);
  assert.equal(page.figures.size, 1);
});
