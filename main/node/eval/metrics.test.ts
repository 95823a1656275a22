import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latexExactMatch } from './latex-match';
import { readingOrderEdit } from './reading-order-metric';
import { parseTsv, linesAsTable } from './tesseract';
import { teds } from './teds';
import { joinHyphenated, markdownPlainText, poolScores, wordScore } from './text-metrics';

test('word F1 ignores order and counts repeated words once each', () => {
  const s = wordScore('world hello hello extra', 'hello world hello');
  assert.equal(s.matched, 3);
  assert.equal(s.precision, 3 / 4);
  assert.equal(s.recall, 1);
  assert.equal(wordScore('TOTAL 12.00', 'total 12.00', true).f1, 1);
  assert.ok(wordScore('TOTAL 12.00', 'total 12.00').f1 < 1);
  assert.equal(poolScores([wordScore('a b', 'a b'), wordScore('', 'c d')]).recall, 0.5);
});

test('a word broken across a line end is one word once joined, in any alphabet, a line end or a space after its hyphen', () => {
  assert.equal(joinHyphenated('be-\ngonnen and Schlä- gen, but well-\nKnown and e-mail stay'), 'begonnen and Schlägen, but well-\nKnown and e-mail stay');
});

test('Markdown marks do not count as words', () => {
  assert.deepEqual(markdownPlainText('# Title\n\n- item\n\n<table><tr><td>a</td><td>b</td></tr></table>\n\n$$\nx\n$$\n\n![Figure](p1-figure1.png)').split(/\s+/).filter(Boolean), ['Title', 'item', 'a', 'b', 'x']);
  // A '<' in text is no tag: the words up to the next real tag stay.
  const text = markdownPlainText('a <70% return, <US$25 too <br/> <td colspan="2">b</td>');
  assert.deepEqual(text.split(/\s+/).filter(Boolean), ['a', '<70%', 'return,', '<US$25', 'too', 'b']);
  // A check box's mark is no word; brackets in text are.
  assert.deepEqual(markdownPlainText('[x] Yes [ ] No\n[ ] Maybe [a] [x]y').split(/\s+/).filter(Boolean), ['Yes', 'No', 'Maybe', '[a]', '[x]y']);
});

test('TEDS is 1 for the same table and falls with wrong structure or text', () => {
  const gt = '<html><body><table><thead><tr><td><b>A</b></td><td>B</td></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table></body></html>';
  assert.equal(teds(gt, gt), 1);
  const text = teds('<table><thead><tr><td>A</td><td>B</td></tr></thead><tbody><tr><td>1</td><td>3</td></tr></tbody></table>', gt);
  const structure = teds('<table><tr><td>A B</td></tr><tr><td>1 2</td></tr></table>', gt);
  assert.ok(text < 1 && text > 0.8, `one wrong cell: ${text}`);
  assert.ok(structure < text, `merged cells ${structure} should score below one wrong cell ${text}`);
  assert.ok(teds('', gt) < 0.3);
});

test('formula exact match compares tokens, not spacing or grouping braces', () => {
  assert.ok(latexExactMatch('\\frac{ab}{c}', '{ \\frac { a b } { c } }'));
  assert.ok(latexExactMatch('$$x^2$$', 'x ^ { 2 }'));
  assert.ok(!latexExactMatch('x^3', 'x ^ { 2 }'));
});

test('reading-order edit is 0 for the right order and grows with swaps', () => {
  const gt = [0, 1, 2, 3].map((i) => ({ x0: 0, y0: i * 100, x1: 100, y1: i * 100 + 80 }));
  assert.equal(readingOrderEdit(gt, gt).edit, 0);
  const swapped = [gt[1]!, gt[0]!, gt[2]!, gt[3]!];
  assert.equal(readingOrderEdit(gt, swapped).edit, 0.5);
  assert.equal(readingOrderEdit(gt, [gt[0]!]).matched, 1);
  // One region over two columns is read across them, so the column order earns nothing.
  const columns = [{ x0: 0, y0: 0, x1: 100, y1: 300 }, { x0: 150, y0: 0, x1: 250, y1: 150 }];
  const left = [{ x0: 0, y0: 0, x1: 100, y1: 140 }, { x0: 0, y0: 160, x1: 100, y1: 300 }];
  const truth = [left[0]!, left[1]!, columns[1]!];
  assert.equal(readingOrderEdit(truth, [{ x0: 0, y0: 0, x1: 250, y1: 300 }]).edit, 2 / 3);
  assert.equal(readingOrderEdit(truth, columns).edit, 0);
});

test('Tesseract TSV becomes lines, blocks in its order, and a table of its lines', () => {
  const tsv = [
    'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
    '2\t1\t1\t0\t0\t0\t10\t10\t300\t20\t-1\t',
    '5\t1\t1\t1\t1\t1\t10\t10\t40\t20\t95\tItem',
    '5\t1\t1\t1\t1\t2\t200\t10\t40\t20\t95\t12.00',
    '2\t1\t2\t0\t0\t0\t10\t50\t300\t20\t-1\t',
    '5\t1\t2\t1\t1\t1\t10\t50\t40\t20\t95\tTotal',
  ].join('\n');
  const page = parseTsv(tsv);
  assert.equal(page.text, 'Item 12.00\nTotal');
  assert.equal(page.blocks.length, 2);
  assert.equal(linesAsTable(page.lines), '<table><tbody><tr><td>Item</td><td>12.00</td></tr><tr><td>Total</td></tr></tbody></table>');
});
