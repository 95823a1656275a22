import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confidenceSplit, readHocrWords, wordBoxHits } from './word-box-metric';

test('a word hits when its centre lies in the nearest same-text ground-truth word, fits when it overlaps it by half; misread and short words do not count', () => {
  const truth = [
    { text: 'the', box: { x0: 0, y0: 0, x1: 30, y1: 10 } },
    { text: 'Notes', box: { x0: 40, y0: 0, x1: 90, y1: 10 } },
    { text: 'Notes', box: { x0: 40, y0: 100, x1: 90, y1: 110 } },
    { text: 'of', box: { x0: 100, y0: 0, x1: 120, y1: 10 } },
  ];
  const hits = wordBoxHits([
    { text: 'Notes', box: { x0: 45, y0: 98, x1: 95, y1: 112 } }, // the second "Notes": hit, IoU 450 / 750
    { text: 'Notes', box: { x0: 0, y0: -20, x1: 130, y1: 30 } }, // centre on the first "Notes", IoU 500 / 6500
    { text: 'the', box: { x0: 50, y0: 0, x1: 80, y1: 10 } }, // centre 65 is outside "the": miss
    { text: 'Nctes', box: { x0: 40, y0: 0, x1: 90, y1: 10 } }, // misread: not counted
    { text: 'of', box: { x0: 100, y0: 0, x1: 120, y1: 10 } }, // short: not counted
  ], truth);
  assert.deepEqual(hits, { hits: 2, fits: 1, total: 3 });
});

test('hOCR words and page size are read with either quote style, entities decoded', () => {
  const xml = `<div class='ocr_page' title='image "x.png"; bbox 0 0 600 800; ppageno 0'>
    <span class='ocrx_word' id='w1' title='bbox 1 2 30 40;x_wconf 100' lang='eng'>A&amp;B</span>
    <span class="ocrx_word" id="w2" title="bbox 50 2 80 40; x_wconf 91">&quot;ok&quot;</span></div>`;
  assert.deepEqual(readHocrWords(xml), { page: { width: 600, height: 800 }, words: [
    { text: 'A&B', box: { x0: 1, y0: 2, x1: 30, y1: 40 } }, { text: '"ok"', box: { x0: 50, y0: 2, x1: 80, y1: 40 } },
  ] });
});

test('words are split by confidence into sure and flagged, each counted right when the page has it; wrong words are counted with those flagged', () => {
  const box = { x0: 0, y0: 0, x1: 1, y1: 1 };
  const truth = [{ text: 'total', box }, { text: '42', box }];
  const words = [
    { text: 'total', box, confidence: 0.95 }, { text: 'tota1', box, confidence: 0.9 }, // sure: one right
    { text: '42', box, confidence: 0.5 }, { text: '4Z', box, confidence: 0.3 }, { text: 'x', box, confidence: 0.89 }, // flagged: one right
    { text: 'total', box }, // no confidence: not counted
  ];
  assert.deepEqual(confidenceSplit(words, new Set(truth.map((t) => t.text))), { sure: 2, sureRight: 1, unsure: 3, unsureRight: 1, wrong: 3, wrongFlagged: 2 });
});
