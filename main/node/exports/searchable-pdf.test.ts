// End to end with the embedded model: the CLI's searchable PDF of a photographed page and of a two-page scanned
// PDF, read back by poppler as any viewer or indexer would. Its words come out in reading order and each sits
// within its hOCR box on the page; the input's images are in it byte for byte; a PDF keeps its pages.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { addonPath, defaultModelDir } from '../engine/native-addon';

const ROOT = join(__dirname, '..', '..', '..');
const SAMPLES = join(ROOT, 'assets', 'samples');

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: ROOT, maxBuffer: 64 * 2 ** 20 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function unescape(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;|&apos;/g, "'").replace(/&amp;/g, '&');
}

interface Word {
  text: string;
  box: [number, number, number, number];
}

/** Each page's size and words, from the hOCR (pixels) or from pdftotext -bbox (points). */
function hocrPages(hocr: string): Array<{ size: [number, number]; words: Word[] }> {
  return hocr.split('class="ocr_page"').slice(1).map((page) => ({
    size: page.match(/title="bbox 0 0 (\d+) (\d+)/)!.slice(1).map(Number) as [number, number],
    words: [...page.matchAll(/class="ocrx_word"[^>]*title="bbox (\d+) (\d+) (\d+) (\d+);[^>]*>([^<]*)</g)]
      .map((m) => ({ text: unescape(m[5]!), box: m.slice(1, 5).map(Number) as Word['box'] })),
  }));
}

function pdfPages(pdf: string): Array<{ size: [number, number]; words: Word[] }> {
  return run('pdftotext', ['-bbox', pdf, '-']).split('<page ').slice(1).map((page) => ({
    size: page.match(/width="([\d.]+)" height="([\d.]+)"/)!.slice(1).map(Number) as [number, number],
    words: [...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)]
      .map((m) => ({ text: unescape(m[5]!), box: m.slice(1, 5).map(Number) as Word['box'] })),
  }));
}

/** The images pdfimages extracts as they are stored (a JPEG's own bytes), in page order. */
function storedImages(pdf: string, dir: string): Buffer[] {
  run('pdfimages', ['-all', pdf, join(dir, 'img')]);
  return readdirSync(dir).filter((f) => f.startsWith('img')).sort().map((f) => readFileSync(join(dir, f)));
}

const skip = !existsSync(addonPath()) ? 'native engine not built' : !existsSync(join(defaultModelDir(), 'config.json')) && 'no embedded model';

for (const input of ['page-photo.jpg', 'two-page-report.pdf']) {
  test(`searchable PDF of ${input}: the words in reading order, each within its box, the images as they were`, { skip, timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'saccade-searchable-'));
    try {
      const out = join(dir, 'searchable.pdf');
      run(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'cli.ts'), join(SAMPLES, input), '-o', out, '--hocr', '--views', '1']);
      const read = hocrPages(readFileSync(join(dir, 'searchable.hocr'), 'utf8'));
      const words = read.flatMap((p) => p.words.map((w) => w.text));
      assert.ok(words.length > 50, `${words.length} words read`);
      // Content order is reading order: what a viewer copies, and what pdftotext -raw gives, is the hOCR's.
      assert.deepEqual(run('pdftotext', ['-raw', out, '-']).split(/\s+/).filter(Boolean), words);
      // Every word found on the page lies over the word the model read there.
      const laid = pdfPages(out);
      assert.equal(laid.length, read.length);
      laid.forEach((page, p) => {
        const [sx, sy] = [page.size[0] / read[p]!.size[0], page.size[1] / read[p]!.size[1]];
        for (const w of page.words) {
          const [cx, cy] = [(w.box[0] + w.box[2]) / 2 / sx, (w.box[1] + w.box[3]) / 2 / sy];
          const under = read[p]!.words.some((r) => r.text === w.text && cx >= r.box[0] - 1 && cx <= r.box[2] + 1 && cy >= r.box[1] - 1 && cy <= r.box[3] + 1);
          assert.ok(under, `page ${p + 1}: "${w.text}" at ${cx.toFixed(0)},${cy.toFixed(0)} is not over its hOCR box`);
        }
      });
      // The scans themselves are untouched: a JPEG's bytes, a PDF's image streams.
      const original = input.endsWith('.pdf') ? storedImages(join(SAMPLES, input), mkdtempSync(join(dir, 'in-'))) : [readFileSync(join(SAMPLES, input))];
      assert.deepEqual(storedImages(out, mkdtempSync(join(dir, 'out-'))), original);
      assert.match(run('pdfinfo', [out]), /Creator:\s+Saccade/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** A page's box as it stands once the page is turned `degrees` clockwise (page size `width` x `height` upright). */
function turned(box: Word['box'], degrees: number, width: number, height: number): Word['box'] {
  const [x0, y0, x1, y1] = box;
  if (degrees === 90) return [height - y1, x0, height - y0, x1];
  if (degrees === 180) return [width - x1, height - y1, width - x0, height - y0];
  return box;
}

test('pages turned a quarter and a half: their words are placed along the text, and the PDF reads in order', { skip, timeout: 120_000 }, async () => {
  const { PDFDocument, degrees } = await import('pdf-lib');
  const dir = mkdtempSync(join(tmpdir(), 'saccade-turned-'));
  try {
    const doc = await PDFDocument.load(readFileSync(join(SAMPLES, 'two-page-report.pdf')));
    doc.getPage(0).setRotation(degrees(90));
    doc.getPage(1).setRotation(degrees(180));
    const input = join(dir, 'turned-report.pdf');
    writeFileSync(input, await doc.save());
    const cli = (file: string, out: string) => run(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'cli.ts'), file, '-o', out, '--hocr', '--views', '1']);
    cli(join(SAMPLES, 'two-page-report.pdf'), join(dir, 'upright.md'));
    cli(input, join(dir, 'turned.pdf'));
    const upright = hocrPages(readFileSync(join(dir, 'upright.hocr'), 'utf8'));
    const read = hocrPages(readFileSync(join(dir, 'turned.hocr'), 'utf8'));
    assert.deepEqual(run('pdftotext', ['-raw', join(dir, 'turned.pdf'), '-']).split(/\s+/).filter(Boolean), read.flatMap((p) => p.words.map((w) => w.text)));
    [90, 180].forEach((turn, p) => {
      const [width, height] = upright[p]!.size;
      const near = (a: Word['box'], b: Word['box']) => a.every((v, k) => Math.abs(v - b[k]!) <= 12);
      const placed = read[p]!.words.filter((w) => upright[p]!.words.some((u) => u.text === w.text && near(w.box, turned(u.box, turn, width, height))));
      // The readings of a turned page differ a little from the upright one's; the words they share sit where
      // the upright page's words sit, turned.
      assert.ok(placed.length >= 0.7 * read[p]!.words.length, `page ${p + 1} turned ${turn}: ${placed.length} of ${read[p]!.words.length} words where the upright page has them`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
