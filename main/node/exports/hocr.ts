// hOCR (the open standard OCR tools exchange word positions in: XHTML with `bbox` and `x_wconf` in each
// element's title): pages (with their resolution, `scan_res`), the layout's regions in reading order as
// paragraphs, their lines (with `textangle` on a turned page) and words, each word with its box on the page
// and the model's confidence in it (word-boxes.ts); `x_source encoder` marks a word the line encoder read
// alone, in a script the decoder cannot write (common/engine-types.ts TokenSource). Page coordinates are the
// pixels of the page as it was read (PDF pages at their render resolution). It is written in three parts, the
// head, each page as it is read, and the tail, so that a long document's hOCR is never held whole.
import type { Box, DocumentInfo, LayoutRegion, PageInfo } from '../../../common/protocol';
import { quarterTurns } from '../../../common/quarter-turns';
import { escapeHtml } from '../pipeline/write/table-markup';
import type { LineBox } from '../pipeline/write/word-boxes';

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

/** A line's `textangle`: degrees counter-clockwise from a page's upright text, in quarter turns; none when upright. */
function textangle(angle: number): string {
  const turns = quarterTurns(angle);
  return turns === 0 ? '' : `; textangle ${360 - 90 * turns}`;
}

/**
 * One page with its read regions in reading order, each a paragraph of lines; element ids are unique within
 * the document. `textAngle`: the direction the page's text runs in (PageLayoutEvent.textAngle), for lines
 * whose crop did not say their own.
 */
export function hocrPage(page: PageInfo, regions: readonly HocrRegion[], textAngle = 0): string {
  const n = page.index + 1;
  const res = page.dpi ? `; scan_res ${Math.round(page.dpi)} ${Math.round(page.dpi)}` : '';
  const out = [`<div class="ocr_page" id="page_${n}" title="${bbox({ x0: 0, y0: 0, x1: page.width, y1: page.height })}; ppageno ${page.index}${res}">`];
  let ids = 0;
  for (const { region, lines } of regions) {
    if (lines.length === 0) continue;
    out.push(`<div class="ocr_carea" id="block_${n}_${++ids}" title="${bbox(region.box)}" data-kind="${esc(region.kind)}">`);
    out.push(`<p class="ocr_par" id="par_${n}_${++ids}" title="${bbox(region.box)}">`);
    for (const line of lines) {
      out.push(`<span class="ocr_line" id="line_${n}_${++ids}" title="${bbox(line.box)}${textangle(line.angle ?? textAngle)}">`);
      out.push(line.words.map((w) =>
        `<span class="ocrx_word" id="word_${n}_${++ids}" title="${bbox(w.box)}; x_wconf ${Math.round(100 * w.confidence)}${w.readBy ? `; x_source ${w.readBy}` : ''}">${esc(w.text)}</span>`).join(' '));
      out.push('</span>');
    }
    out.push('</p>', '</div>');
  }
  out.push('</div>', '');
  return out.join('\n');
}

export const HOCR_TAIL = '</body>\n</html>\n';
