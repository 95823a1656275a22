// The CLI's searchable PDF as a browser shows it: pdf.js (the app's own PDF reader, pdfjs-dist) draws the
// output's text layer in real Chromium, and a word searched for in that layer is found where the model read
// it: its rectangle's centre lies inside the word's hOCR box. The page is the sample scan read by the shipped
// model, so the words are real; the ones checked are plain words that occur once on the page. Skipped, with the reason, where the
// engine or the model is missing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { launchChromium } from '../support/browser';

const ROOT = join(__dirname, '..', '..');
const missing = ['native/build/Release/saccade.node', 'assets/models/saccade-ocr-tiny/config.json'].filter((p) => !existsSync(join(ROOT, p)));
const skip = missing.length ? `the real engine is not available here (missing ${missing.join(', ')})` : false;

interface HocrWord {
  text: string;
  box: [number, number, number, number];
}

function hocrWords(hocr: string): { page: [number, number]; words: HocrWord[] } {
  const page = /class="ocr_page"[^>]*title="bbox 0 0 (\d+) (\d+)/.exec(hocr)!;
  const words = [...hocr.matchAll(/class="ocrx_word"[^>]*title="bbox (\d+) (\d+) (\d+) (\d+);[^"]*">([^<]*)<\/span>/g)]
    .map((m) => ({ text: m[5]!, box: [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] as HocrWord['box'] }));
  return { page: [Number(page[1]), Number(page[2])], words };
}

/** Draws page 1's text layer at the hOCR's pixel size and gives each searched word's rectangles there. */
const PAGE = `<!doctype html><meta charset="utf-8"><link rel="stylesheet" href="/pdf_viewer.css">
<body style="margin:0"><div id="layer" class="textLayer"></div>
<script type="module">
import * as pdfjs from '/pdf.mjs';
pdfjs.GlobalWorkerOptions.workerSrc = '/pdf.worker.mjs';
window.locateWords = async (width, words) => {
  const doc = await pdfjs.getDocument('/out.pdf').promise;
  const page = await doc.getPage(1);
  const scale = width / page.getViewport({ scale: 1 }).width;
  const viewport = page.getViewport({ scale });
  const container = document.getElementById('layer');
  // What pdf.js's viewer sets on a page (pdf_viewer.css's .pdfViewer .page): the text layer's sizes follow it.
  container.style.setProperty('--total-scale-factor', String(scale));
  await new pdfjs.TextLayer({ textContentSource: page.streamTextContent(), container, viewport }).render();
  const origin = container.getBoundingClientRect();
  const nodes = [...container.querySelectorAll('span')].map((s) => s.firstChild).filter((n) => n && n.nodeType === Node.TEXT_NODE);
  // pdf.js joins neighbouring words into one span: a word is found as the browser's find would, as a range of
  // a span's text standing as a whole word, and its rectangle is that range's.
  const letter = (c) => c !== undefined && (c.toLowerCase() !== c.toUpperCase() || (c >= '0' && c <= '9'));
  return words.map((word) => nodes.flatMap((node) => {
    const found = [];
    for (let at = node.data.indexOf(word); at >= 0; at = node.data.indexOf(word, at + 1)) {
      if (letter(node.data[at - 1]) || letter(node.data[at + word.length])) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + word.length);
      const r = range.getBoundingClientRect();
      found.push([r.left - origin.left, r.top - origin.top, r.right - origin.left, r.bottom - origin.top]);
    }
    return found;
  }));
};
</script>`;

test('pdf.js in Chromium finds a searched word of the searchable PDF inside its box on the page', { skip, timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-text-layer-'));
  const cli = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'main', 'node', 'cli.ts'), join(ROOT, 'assets', 'samples', 'scanned-page.png'),
    '-o', join(dir, 'out.md'), '--hocr', '--pdf'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  const { page, words } = hocrWords(readFileSync(join(dir, 'out.hocr'), 'utf8'));
  // Plain words whose letters no other word on the page holds (a search for "copy" also finds "copy,").
  const letters = (text: string) => text.replace(/[^\p{L}\p{N}]/gu, '');
  const once = words.filter((w) => /^[A-Za-z]{4,}$/.test(w.text) && words.filter((v) => letters(v.text).includes(w.text)).length === 1);
  assert.ok(once.length >= 20, `${once.length} words occur once`);

  const files: Record<string, [string, string]> = {
    '/': ['text/html', ''],
    '/pdf.mjs': ['text/javascript', join(ROOT, 'node_modules', 'pdfjs-dist', 'build', 'pdf.mjs')],
    '/pdf.worker.mjs': ['text/javascript', join(ROOT, 'node_modules', 'pdfjs-dist', 'build', 'pdf.worker.mjs')],
    '/pdf_viewer.css': ['text/css', join(ROOT, 'node_modules', 'pdfjs-dist', 'web', 'pdf_viewer.css')],
    '/out.pdf': ['application/pdf', join(dir, 'out.pdf')],
  };
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0] }).end(file[1] ? readFileSync(file[1]) : PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage({ viewport: { width: page[0], height: page[1] } });
    await tab.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    await tab.waitForFunction(() => typeof (window as unknown as { locateWords?: unknown }).locateWords === 'function');
    const found = await tab.evaluate(([width, texts]) => (window as unknown as { locateWords(w: number, t: string[]): Promise<number[][][]> }).locateWords(width, texts),
      [page[0], once.map((w) => w.text)] as const);
    const inside = once.filter((w, k) => found[k]!.length === 1 && (() => {
      const [x0, y0, x1, y1] = found[k]![0]!;
      const [cx, cy] = [(x0! + x1!) / 2, (y0! + y1!) / 2];
      // Two pixels for the hOCR's whole-pixel boxes and the font's rounding.
      return cx >= w.box[0] - 2 && cx <= w.box[2] + 2 && cy >= w.box[1] - 2 && cy <= w.box[3] + 2;
    })());
    const lost = once.filter((w) => !inside.includes(w)).map((w) => `${w.text} ${JSON.stringify(w.box)} -> ${JSON.stringify(found[once.indexOf(w)])}`);
    assert.equal(inside.length, once.length, `${inside.length} of ${once.length} words found inside their box; not: ${lost.slice(0, 5).join('; ')}`);
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
