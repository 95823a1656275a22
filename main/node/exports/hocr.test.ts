import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DocumentInfo, LayoutRegion } from '../../../common/protocol';
import { HOCR_TAIL, hocrHead, hocrPage, type HocrRegion } from './hocr';

/** A whole document's hOCR as the CLI writes it, head, pages and tail. */
function renderHocr(doc: DocumentInfo, pages: ReadonlyArray<readonly HocrRegion[]>, textAngle = 0): string {
  return hocrHead(doc) + doc.pages.map((page) => hocrPage(page, pages[page.index] ?? [], textAngle)).join('') + HOCR_TAIL;
}

/** Every element closed in order (the XHTML is well formed as far as its tags go). */
function balanced(xml: string): boolean {
  const stack: string[] = [];
  for (const m of xml.replace(/<\?[^>]*\?>|<!DOCTYPE[^>]*>/g, '').matchAll(/<(\/?)([a-z]+)[^>]*?(\/?)>/g)) {
    if (m[3]) continue;
    if (!m[1]) stack.push(m[2]!);
    else if (stack.pop() !== m[2]) return false;
  }
  return stack.length === 0;
}

test('hOCR holds each page, region, line and word with its box, the word\'s confidence and whether the encoder alone read it, text escaped', () => {
  const doc: DocumentInfo = { docId: 'd', name: 'a&b.pdf', format: 'pdf', pages: [{ index: 0, width: 600, height: 800 }, { index: 1, width: 600, height: 800 }] };
  const region: LayoutRegion = { id: 'p0-r0', page: 0, kind: 'text', box: { x0: 10, y0: 20, x1: 300.4, y1: 60 }, order: 0 };
  const hocr = renderHocr(doc, [[{ region, lines: [{ box: { x0: 10, y0: 20, x1: 120, y1: 40 }, words: [
    { text: 'x<y', box: { x0: 10.2, y0: 20, x1: 49.6, y1: 40 }, confidence: 0.876 },
    { text: '"ok"', box: { x0: 60, y0: 20, x1: 120, y1: 40 }, confidence: 0.3 },
    { text: '東京', box: { x0: 130, y0: 20, x1: 160, y1: 40 }, confidence: 0.97, readBy: 'encoder' },
  ] }] }], []]);
  assert.ok(balanced(hocr));
  assert.match(hocr, /<title>a&amp;b\.pdf<\/title>/);
  assert.match(hocr, /class="ocr_page" id="page_1" title="bbox 0 0 600 800; ppageno 0"/);
  assert.match(hocr, /class="ocr_page" id="page_2" title="bbox 0 0 600 800; ppageno 1"/);
  assert.match(hocr, /class="ocr_carea" [^>]*title="bbox 10 20 300 60"/);
  assert.match(hocr, /class="ocr_line" [^>]*title="bbox 10 20 120 40"/);
  assert.match(hocr, /class="ocrx_word" [^>]*title="bbox 10 20 50 40; x_wconf 88">x&lt;y<\/span> <span/);
  assert.match(hocr, /x_wconf 30">&quot;ok&quot;<\/span>/);
  assert.match(hocr, /title="bbox 130 20 160 40; x_wconf 97; x_source encoder">東京<\/span>/);
  const ids = [...hocr.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
});

test('control characters a file name or a reading may hold are dropped: the hOCR stays well-formed XML', () => {
  const doc: DocumentInfo = { docId: 'd', name: 'scan\u001b[31m\u0007.pdf', format: 'pdf', pages: [{ index: 0, width: 100, height: 100 }] };
  const region: LayoutRegion = { id: 'p0-r0', page: 0, kind: 'text', box: { x0: 0, y0: 0, x1: 50, y1: 20 }, order: 0 };
  const hocr = renderHocr(doc, [[{ region, lines: [{ box: region.box, words: [{ text: 'a\u0000b\tc', box: region.box, confidence: 1 }] }] }]]);
  assert.match(hocr, /<title>scan\[31m\.pdf<\/title>/);
  assert.match(hocr, />ab\tc<\/span>/);
  assert.doesNotMatch(hocr, /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
});

test('what OCR tools expect of hOCR: the page\'s resolution, paragraphs holding lines, and the angle of a turned line', () => {
  const doc: DocumentInfo = { docId: 'd', name: 'scan.pdf', format: 'pdf', pages: [{ index: 0, width: 1700, height: 2200, dpi: 200 }] };
  const region: LayoutRegion = { id: 'p0-r0', page: 0, kind: 'text', box: { x0: 0, y0: 0, x1: 500, y1: 100 }, order: 0 };
  const word = (text: string) => ({ text, box: region.box, confidence: 0.9 });
  const lines = [
    { box: region.box, words: [word('upright')], angle: 0 },
    { box: region.box, words: [word('upside')], angle: Math.PI },
    { box: region.box, words: [word('page')] },
  ];
  const hocr = renderHocr(doc, [[{ region, lines }]], Math.PI / 2);
  assert.ok(balanced(hocr));
  assert.match(hocr, /class="ocr_page" [^>]*title="bbox 0 0 1700 2200; ppageno 0; scan_res 200 200"/);
  assert.match(hocr, /<div class="ocr_carea"[^>]*>\n<p class="ocr_par" [^>]*title="bbox 0 0 500 100">\n<span class="ocr_line"/);
  // Degrees counter-clockwise: upside down is 180; a line that says nothing takes the page's direction, here
  // running down a page turned a quarter clockwise.
  const angles = [...hocr.matchAll(/class="ocr_line" [^>]*title="([^"]*)">\n<span[^>]*>(\w+)/g)].map((m) => [m[2], /textangle (\d+)/.exec(m[1]!)?.[1] ?? null]);
  assert.deepEqual(angles, [['upright', null], ['upside', '180'], ['page', '270']]);
});
