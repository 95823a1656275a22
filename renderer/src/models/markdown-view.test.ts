import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMarkdownBlocks } from './markdown-view';

test('a model card parses into headings, paragraphs, lists, tables and folded code', () => {
  const blocks = parseMarkdownBlocks([
    '# Model', '', 'One paragraph', 'on two lines.', '', '- first', '  continued', '- second', '',
    '| a | b |', '|---|---|', '| 1 | 2 |', '', '```', 'python train.py --steps 9', '```', '<script>alert(1)</script>',
  ].join('\n'));
  assert.deepEqual(blocks, [
    { kind: 'heading', level: 1, text: 'Model' },
    { kind: 'paragraph', text: 'One paragraph on two lines.' },
    { kind: 'list', items: ['first continued', 'second'] },
    { kind: 'table', rows: [['a', 'b'], ['1', '2']] },
    { kind: 'code', text: 'python train.py --steps 9' },
    { kind: 'paragraph', text: '<script>alert(1)</script>' },
  ]);
});
