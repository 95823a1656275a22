// Memory over a long document is flat in its page count: the CLI decodes a generated 50-page scan with the real
// pipeline and engine (a small random checkpoint, every reading kept, with --json and --hocr, which keep the
// most per page, and --pdf, whose searchable copy holds the input's pages and gains each page's words as it is
// read), writing each page as it is read; the process's resident memory is sampled from outside as the pages
// appear in its Markdown, and must not grow between the second quarter of the document and the last
// (docs/threat-model.md: memory per page).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sharp } from './inputs/image-codec';
import { scannedPdf } from '../../test/support/bad-inputs';
import { addonPath } from './engine/native-addon';

const ROOT = join(__dirname, '..', '..');
const PAGES = 50;
/**
 * The growth allowed between the two quarters' medians, about 25 pages apart: 2 MB a page. Holding every
 * page's rounds and tokens until the end cost 10 MB a page here, and libvips' cache 19 MB a page.
 */
const GROWTH_BOUND_MB = 48;

/** Resident memory of a running process, in MB (Linux). */
function residentMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

/** Pages whose Markdown is written: every page after the first opens with its page comment. */
function pagesWritten(markdown: string): number {
  let text: string;
  try {
    text = readFileSync(markdown, 'utf8');
  } catch {
    return 0;
  }
  return text ? 1 + text.split('<!-- page ').length - 1 : 0;
}

const skip = process.platform !== 'linux' ? 'resident memory is read from /proc (Linux)' : !existsSync(addonPath()) && 'native engine not built';

test(`ocr CLI: a ${PAGES}-page scan is written page by page, in memory that does not grow with the pages`, { skip, timeout: 240_000 }, async () => {
  const { writeTinyCheckpoint } = (await import(join(ROOT, 'native', 'test', 'tiny-checkpoint.mjs'))) as { writeTinyCheckpoint(name: string): string };
  const model = writeTinyCheckpoint('cli-memory');
  const dir = mkdtempSync(join(tmpdir(), 'saccade-memory-'));
  try {
    // Every page its own JPEG object, as a scanner writes them: nothing is shared between pages.
    const page = await sharp(join(ROOT, 'assets', 'samples', 'scanned-page.png')).toColourspace('b-w').jpeg({ quality: 80 }).toBuffer({ resolveWithObject: true });
    const pdf = join(dir, 'long-scan.pdf');
    writeFileSync(pdf, scannedPdf(page.data, page.info.width, page.info.height, PAGES));
    const markdown = join(dir, 'out', 'long-scan.md');
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'cli.ts'), pdf, '-o', markdown, '--json', '--hocr', '--pdf',
      '--model', model, '--max-tokens', '4', '--views', '1', '--keep-unsure', '--mode', 'ar'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    const samples: Array<{ pages: number; mb: number }> = [];
    const sampler = setInterval(() => {
      const mb = residentMb(child.pid!);
      if (mb !== null) samples.push({ pages: pagesWritten(markdown), mb });
    }, 100);
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearInterval(sampler);
    assert.equal(status, 0, stderr);
    assert.match(stderr, new RegExp(`${PAGES} page\\(s\\) from 1/1 file`));
    // The outputs were written while the document was being read, not at the end.
    assert.ok(samples.some((s) => s.pages > 0 && s.pages < PAGES / 2), `pages written as the run went: ${[...new Set(samples.map((s) => s.pages))]}`);
    // Medians: the allocator and the garbage collector move single samples by tens of MB either way; a leak
    // moves them all.
    const median = (from: number, to: number) => {
      const mb = samples.filter((s) => s.pages >= from && s.pages < to).map((s) => s.mb).sort((a, b) => a - b);
      return mb[mb.length >> 1] ?? NaN;
    };
    const second = median(PAGES / 4, PAGES / 2);
    const last = median((3 * PAGES) / 4, PAGES + 1);
    assert.ok(Number.isFinite(second) && Number.isFinite(last), 'both quarters were sampled');
    assert.ok(last - second < GROWTH_BOUND_MB, `resident memory grew from ${second.toFixed(0)} MB (pages ${PAGES / 4}-${PAGES / 2}) to ${last.toFixed(0)} MB (the last quarter)`);
    // Every page is in every output, each well formed.
    const json = JSON.parse(readFileSync(markdown.replace(/\.md$/, '.json'), 'utf8'));
    assert.equal(json.pages.length, PAGES);
    assert.equal(json.cancelled, false);
    const hocr = readFileSync(markdown.replace(/\.md$/, '.hocr'), 'utf8');
    assert.equal(hocr.split('class="ocr_page"').length - 1, PAGES);
    assert.match(hocr, /<\/body>\n<\/html>\n$/);
    assert.equal(pagesWritten(markdown), PAGES);
    assert.match(spawnSync('pdfinfo', [markdown.replace(/\.md$/, '.pdf')], { encoding: 'utf8' }).stdout, new RegExp(`Pages:\\s+${PAGES}\\n`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
