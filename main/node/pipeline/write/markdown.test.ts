import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinLines, MarkdownWriter, type RecognisedRegion } from './markdown';

/** The document's Markdown: its pages' chunks, written one after another. */
function assembleMarkdown(pages: RecognisedRegion[][], indices = pages.map((_, i) => i)): string {
  const writer = new MarkdownWriter();
  return pages.map((regions, i) => writer.page(indices[i]!, regions)).join('');
}

test('lines of a paragraph join with one space, and a hyphen at a line end stays as printed', () => {
  assert.equal(joinLines(['The recog-', 'niser reads', '  single lines. ', '']), 'The recog- niser reads single lines.');
  assert.equal(joinLines(['a well-', 'known fact']), 'a well- known fact');
  // Chinese and Japanese run on without a space; beside Latin text, or in Korean, the space stays.
  assert.equal(joinLines(['今天的天气', '很好。', '東京駅から', 'です', 'Saccade', '读取']), '今天的天气很好。東京駅からです Saccade 读取');
  assert.equal(joinLines(['한국어 문장', '입니다']), '한국어 문장 입니다');
});

test('regions become Markdown in reading order: header, heading, paragraph, list, table, formula, figure, footer; pages are separated', () => {
  const md = assembleMarkdown([
    [
      { kind: 'header', lines: ['Journal of Tests, vol. 3'] },
      { kind: 'title', lines: ['Results'] },
      { kind: 'text', lines: ['We measured', 'everything.'] },
      { kind: 'text', lines: ['1. First item', 'continued', '2. Second item'] },
      { kind: 'table', lines: ['<table><tr><td>a</td></tr></table>'] },
      { kind: 'formula', lines: ['E = mc^2'] },
      { kind: 'figure', lines: [], image: 'scan p1 figure1.png' },
      { kind: 'figure', lines: [] },
      { kind: 'footer', lines: ['Page 3'] },
    ],
    [{ kind: 'title', lines: ['Methods'] }, { kind: 'text', lines: ['• bullet one', '• bullet two'] }],
  ]);
  assert.equal(md, [
    'Journal of Tests, vol. 3',
    '# Results',
    'We measured everything.',
    '1. First item continued\n2. Second item',
    '<table><tr><td>a</td></tr></table>',
    '$$\nE = mc^2\n$$',
    '![Figure](scan%20p1%20figure1.png)',
    'Page 3',
    '---\n\n<!-- page 2 -->',
    '## Methods',
    '- bullet one\n- bullet two',
  ].join('\n\n') + '\n');
});

test('a table without its <table> wrapper is wrapped, and empty regions leave nothing', () => {
  assert.equal(assembleMarkdown([[{ kind: 'table', lines: ['<tr><td>x</td></tr>'] }, { kind: 'text', lines: ['  '] }]]), '<table><tr><td>x</td></tr></table>\n');
});

test('prose that looks like HTML is written so that no renderer takes it as HTML; tables and formulas keep theirs', () => {
  const md = assembleMarkdown([[
    { kind: 'title', lines: ['<b>Title</b>'] },
    { kind: 'text', lines: ['<script>alert(1)</script>', '<img src=x onerror=alert(2)>'] },
    { kind: 'text', lines: ['1. <i>one</i>', '2. two'] },
    { kind: 'table', lines: ['<table><tr><td>a &lt; b</td></tr></table>'] },
    { kind: 'formula', lines: ['a < b'] },
  ]]);
  assert.equal(md, [
    '# &lt;b>Title&lt;/b>',
    '&lt;script>alert(1)&lt;/script> &lt;img src=x onerror=alert(2)>',
    '1. &lt;i>one&lt;/i>\n2. two',
    '<table><tr><td>a &lt; b</td></tr></table>',
    '$$\na < b\n$$',
  ].join('\n\n') + '\n');
});

test('each page\'s chunk is complete as it is written: a break names the page in the document, and an empty page is still one', () => {
  const writer = new MarkdownWriter();
  assert.equal(writer.page(2, []), '');
  assert.equal(writer.page(4, [{ kind: 'title', lines: ['Late start'] }]), '---\n\n<!-- page 5 -->\n\n# Late start\n');
  assert.equal(writer.page(7, [{ kind: 'title', lines: ['Next'] }]), '\n---\n\n<!-- page 8 -->\n\n## Next\n');
});
