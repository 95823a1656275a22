import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previewBlocks } from './preview-blocks';

const table = '<table><thead><tr><td>Mode</td><td>Tokens/forward</td></tr></thead>\n<tbody><tr><td colspan="2">AR &amp; spec</td></tr>\n<tr><td>Self-spec</td><td>3.41</td></tr></tbody></table>';

test('a page of Saccade\'s Markdown parses into blocks, each with the span of its source', () => {
  const md = `# Report\n\nSome &lt;prose&gt;\non two lines.\n\n${table}\n\n$$\n\\tau = 1\n$$\n\n---\n\n<!-- page 2 -->\n\nMore.`;
  const blocks = previewBlocks(md);
  assert.deepEqual(blocks.map((b) => b.kind), ['heading', 'paragraph', 'table', 'math', 'rule', 'page', 'paragraph']);
  for (const b of blocks) assert.ok(b.start < b.end && b.end <= md.length);
  assert.equal(md.slice(blocks[0]!.start, blocks[0]!.end), '# Report');
  assert.deepEqual(blocks[1], { kind: 'paragraph', text: 'Some <prose> on two lines.', start: 10, end: 42 });
  const t = blocks[2]!;
  assert.ok(t.kind === 'table');
  assert.deepEqual(t.rows.map((r) => r.map((c) => c.text)), [['Mode', 'Tokens/forward'], ['AR & spec'], ['Self-spec', '3.41']]);
  assert.equal(t.rows[1]![0]!.colSpan, 2);
  // Each cell's span is its source between the tags, what a click in the preview selects.
  assert.equal(md.slice(t.rows[2]![1]!.start, t.rows[2]![1]!.end), '3.41');
  assert.equal(md.slice(t.rows[1]![0]!.start, t.rows[1]![0]!.end), 'AR &amp; spec');
  assert.equal(blocks[3]!.kind === 'math' && blocks[3]!.text, '\\tau = 1');
  assert.equal(blocks[5]!.kind === 'page' && blocks[5]!.page, 2);
});

test('hostile text stays text: other tags are a cell\'s words, spans are bounded, an open table shows as far as it goes', () => {
  const blocks = previewBlocks('<script>alert(1)</script>\n\n<table><tr><td rowspan="999999"><img src=x onerror=alert(1)>x</td><td colspan=7>y');
  assert.deepEqual(blocks[0], { kind: 'paragraph', text: '<script>alert(1)</script>', start: 0, end: 25 });
  const t = blocks[1]!;
  assert.ok(t.kind === 'table');
  assert.equal(t.rows[0]![0]!.text, '<img src=x onerror=alert(1)>x');
  assert.equal(t.rows[0]![0]!.rowSpan, 100, 'a span is bounded');
  assert.equal(t.rows[0]!.length, 1, 'the cell never closed is not made up');
});
