// hOCR (the open standard OCR tools exchange word positions in: XHTML with `bbox` and `x_wconf` in each
// element's title): pages, the layout's regions in reading order, their lines and words, each word with its
// box on the page and the model's confidence in it (word-boxes.ts). Page coordinates are the pixels of the
// page as it was read (PDF pages at their render resolution). It is written in three parts, the head, each
// page as it is read, and the tail, so that a long document's hOCR is never held whole.
import type { Box, DocumentInfo, LayoutRegion, PageInfo } from '../../common/protocol';
import { escapeHtml } from './pipeline/write/table-markup';
import type { LineBox } from './pipeline/write/word-boxes';

export interface HocrRegion {
  region: LayoutRegion;
  lines: LineBox[];
}

/**
 * Text and attribute values: escapeHtml, double quotes for the attributes, and the control characters XML 1.0
 * forbids (a file name may hold an ESC) dropped, so the file stays well-formed.
 */
function esc(text: string): string {
  return escapeHtml(text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')).replace(/"/g, '&quot;');
}

function bbox(b: Box): string {
  return `bbox ${Math.round(b.x0)} ${Math.round(b.y0)} ${Math.round(b.x1)} ${Math.round(b.y1)}`;
}

/** Everything before the first page. */
export function hocrHead(doc: DocumentInfo): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">',
    '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">',
    '<head>',
    `<title>${esc(doc.name)}</title>`,
    '<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />',
    '<meta name="ocr-system" content="saccade" />',
    '<meta name="ocr-capabilities" content="ocr_page ocr_carea ocr_line ocrx_word" />',
    '</head>',
    '<body>',
    '',
  ].join('\n');
}

/** One page with its read regions in reading order; element ids are unique within the document. */
export function hocrPage(page: PageInfo, regions: readonly HocrRegion[]): string {
  const n = page.index + 1;
  const out = [`<div class="ocr_page" id="page_${n}" title="${bbox({ x0: 0, y0: 0, x1: page.width, y1: page.height })}; ppageno ${page.index}">`];
  let ids = 0;
  for (const { region, lines } of regions) {
    if (lines.length === 0) continue;
    out.push(`<div class="ocr_carea" id="block_${n}_${++ids}" title="${bbox(region.box)}" data-kind="${esc(region.kind)}">`);
    for (const line of lines) {
      out.push(`<span class="ocr_line" id="line_${n}_${++ids}" title="${bbox(line.box)}">`);
      out.push(line.words.map((w) =>
        `<span class="ocrx_word" id="word_${n}_${++ids}" title="${bbox(w.box)}; x_wconf ${Math.round(100 * w.confidence)}">${esc(w.text)}</span>`).join(' '));
      out.push('</span>');
    }
    out.push('</div>');
  }
  out.push('</div>', '');
  return out.join('\n');
}

export const HOCR_TAIL = '</body>\n</html>\n';
