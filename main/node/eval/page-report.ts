// `npm run eval -- --report DIR`: one HTML file per page, so that the next failure is quick to see: the page with
// our regions and lines drawn on it, our words coloured by whether the ground truth has them (and where the truth
// places its words, the ones we missed), the lists of missed and invented words and of the wrong words the
// confidence called sure, and Tesseract's figure beside ours. The page image is linked by its path, never
// copied: the evaluation scans stay where they are.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHECK_BELOW } from '../../../common/confidence';
import type { Box, LayoutRegion } from '../../../common/protocol';
import { escapeHtml } from '../pipeline/write/table-markup';
import { words } from './text-metrics';
import type { PlacedWord } from './word-box-metric';

export interface ReportPage {
  dataset: string;
  name: string;
  image: string;
  frame: { width: number; height: number };
  truth: string;
  caseInsensitive: boolean;
  truthWords?: PlacedWord[];
  truthSize?: { width: number; height: number };
  ours: { text: string; f1: number | null; regions: LayoutRegion[]; words: PlacedWord[]; ms: number };
  tesseract?: { f1: number | null; ms: number };
}

/** Words of `a` that `b` lacks, counted as multisets. */
function missing(a: string[], b: string[]): string[] {
  const counts = new Map<string, number>();
  for (const w of b) counts.set(w, (counts.get(w) ?? 0) + 1);
  const out: string[] = [];
  for (const w of a) {
    const c = counts.get(w) ?? 0;
    if (c > 0) counts.set(w, c - 1);
    else out.push(w);
  }
  return out;
}

const COLOURS: Record<string, string> = { text: '#1565c0', title: '#6a1b9a', table: '#2e7d32', figure: '#ef6c00', formula: '#00838f', header: '#757575', footer: '#757575', list: '#1565c0' };

function rect(b: Box, colour: string, width: number, dash = ''): string {
  return `<rect x="${b.x0}" y="${b.y0}" width="${b.x1 - b.x0}" height="${b.y1 - b.y0}" fill="none" stroke="${colour}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
}

export function writePageReport(dir: string, page: ReportPage): string {
  const norm = (s: string) => (page.caseInsensitive ? s.toLowerCase() : s);
  const truth = words(page.truth, page.caseInsensitive);
  const ours = words(page.ours.text, page.caseInsensitive);
  const missed = missing(truth, ours);
  const invented = new Set(missing(ours, truth));
  const onPage = new Set(truth);
  const { width, height } = page.frame;
  const line = Math.max(2, Math.round(width / 600));
  const shapes: string[] = [];
  for (const r of page.ours.regions) {
    shapes.push(rect(r.box, COLOURS[r.kind] ?? '#000', 2 * line, '12 6'));
    shapes.push(`<text x="${r.box.x0 + 4}" y="${r.box.y0 - 4}" font-size="${8 * line}" fill="${COLOURS[r.kind] ?? '#000'}">${r.order ?? '-'} ${r.kind}</text>`);
  }
  // The words that cost right-when-sure: not on the page, yet not flagged to check.
  const sureWrong = new Set(page.ours.words.filter((w) => !onPage.has(norm(w.text)) && (w.confidence ?? 0) >= CHECK_BELOW));
  for (const w of page.ours.words) {
    const right = onPage.has(norm(w.text));
    const width = sureWrong.has(w) ? 2 * line : line;
    shapes.push(`${rect(w.box, right ? '#43a047' : '#e53935', width)}<title>${escapeHtml(w.text)}${w.confidence === undefined ? '' : ` (${w.confidence.toFixed(2)})`}</title>`);
  }
  if (page.truthWords && page.truthSize) {
    const sx = width / page.truthSize.width;
    const sy = height / page.truthSize.height;
    const left = new Set(missed);
    for (const w of page.truthWords) {
      if (!left.has(norm(w.text))) continue;
      shapes.push(`${rect({ x0: w.box.x0 * sx, y0: w.box.y0 * sy, x1: w.box.x1 * sx, y1: w.box.y1 * sy }, '#d500f9', line, '4 3')}<title>missed: ${escapeHtml(w.text)}</title>`);
    }
  }
  const fmt = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : x.toFixed(3));
  const list = (ws: string[]) => ws.map((w) => `<span>${escapeHtml(w)}</span>`).join(' ');
  const html = `<!doctype html><meta charset="utf-8"><title>${escapeHtml(page.dataset)}/${escapeHtml(page.name)}</title>
<style>body{font:14px system-ui;margin:16px}svg{max-width:100%;height:auto;border:1px solid #ccc}span{display:inline-block;margin:1px 3px;padding:0 3px;background:#f3f3f3}
.cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:16px}pre{white-space:pre-wrap}</style>
<h1>${escapeHtml(page.dataset)}/${escapeHtml(page.name)}</h1>
<p>word F1 ours <b>${fmt(page.ours.f1)}</b> (${page.ours.ms} ms)${page.tesseract ? `, Tesseract <b>${fmt(page.tesseract.f1)}</b> (${page.tesseract.ms} ms)` : ''}.
Regions dashed by kind with their reading order; our words green when the page has them, red when not, thick red when not and yet sure (hover for the text and confidence); the truth's words we missed dotted purple where the truth places them.</p>
<div class="cols"><svg viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg"><image href="${pathToFileURL(page.image).href}" width="${width}" height="${height}"/>${shapes.join('')}</svg>
<div><h2>Missed (${missed.length} of ${truth.length})</h2><p>${list(missed)}</p><h2>Invented (${ours.filter((w) => invented.has(w)).length} of ${ours.length})</h2><p>${list(ours.filter((w) => invented.has(w)))}</p>
<h2>Wrong and sure (${sureWrong.size})</h2><p>${[...sureWrong].map((w) => `<span>${escapeHtml(w.text)} ${(w.confidence ?? 0).toFixed(2)}</span>`).join(' ')}</p>
<h2>Our text</h2><pre>${escapeHtml(page.ours.text)}</pre></div></div>`;
  const file = join(dir, `${page.dataset}-${page.name.replace(/[^A-Za-z0-9._-]/g, '_')}.html`);
  writeFileSync(file, html);
  return file;
}
