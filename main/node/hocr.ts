// hOCR (the open standard OCR tools exchange word positions in: XHTML with `bbox` and `x_wconf` in each
// element's title): pages, the layout's regions in reading order, their lines and words, each word with its
// box on the page and the model's confidence in it (word-boxes.ts). Page coordinates are the pixels of the
// page as it was read (PDF pages at their render resolution).
import type { Box, DocumentInfo, LayoutRegion } from '../../common/protocol';
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

/** `pages[i]` holds the read regions of `doc.pages[i]`, in reading order. */
export function renderHocr(doc: DocumentInfo, pages: ReadonlyArray<readonly HocrRegion[]>): string {
  const out: string[] = [
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
  ];
  let ids = 0;
  doc.pages.forEach((page, p) => {
    out.push(`<div class="ocr_page" id="page_${p + 1}" title="${bbox({ x0: 0, y0: 0, x1: page.width, y1: page.height })}; ppageno ${p}">`);
    for (const { region, lines } of pages[p] ?? []) {
      if (lines.length === 0) continue;
      out.push(`<div class="ocr_carea" id="block_${p + 1}_${++ids}" title="${bbox(region.box)}" data-kind="${esc(region.kind)}">`);
      for (const line of lines) {
        out.push(`<span class="ocr_line" id="line_${p + 1}_${++ids}" title="${bbox(line.box)}">`);
        out.push(line.words.map((w) =>
          `<span class="ocrx_word" id="word_${p + 1}_${++ids}" title="${bbox(w.box)}; x_wconf ${Math.round(100 * w.confidence)}">${esc(w.text)}</span>`).join(' '));
        out.push('</span>');
      }
      out.push('</div>');
    }
    out.push('</div>');
  });
  out.push('</body>', '</html>', '');
  return out.join('\n');
}
