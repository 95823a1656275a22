import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeCorrections, textEdits, type TextEdit } from './text-merge';

function apply(text: string, edits: TextEdit[]): string {
  let out = '';
  let at = 0;
  for (const e of edits) {
    assert.ok(e.start >= at && e.end >= e.start, 'edits are in order and do not overlap');
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

test('word edits turn one text into the other, touching only the words that differ', () => {
  const cases: Array<[string, string]> = [
    ['Narne: Jane Doe', 'Name: Jane Doe'],
    ['a b c', 'a c'],
    ['a c', 'a b c'],
    ['', 'new text'],
    ['old text', ''],
    ['# Title\n\nOne line.\n', '# Title\n\nOne line, and more.\n\nA new paragraph.'],
    ['same', 'same'],
  ];
  for (const [from, to] of cases) assert.equal(apply(from, textEdits(from, to)), to, `${from} -> ${to}`);
  assert.deepEqual(textEdits('Narne: Jane Doe', 'Name: Jane Doe'), [{ start: 0, end: 6, text: 'Name:' }]);
});

test('a correction survives a new decode that reads the same, and one that reads other words elsewhere', () => {
  const base = 'Narne: Jane Doe\n\nAmount due: 12.00';
  const ours = 'Name: Jane Doe\n\nAmount due: 12.00';
  assert.deepEqual(mergeCorrections(base, ours, base), { text: ours, conflicts: 0 });
  const theirs = 'Narne: Jane Doe\n\nAmount due: 12.50';
  assert.deepEqual(mergeCorrections(base, ours, theirs), { text: 'Name: Jane Doe\n\nAmount due: 12.50', conflicts: 0 });
});

test('where the new decode and the user both changed a word, the user\'s word is kept and counted', () => {
  const merged = mergeCorrections('Narne: Jane', 'Name: Jane', 'Nane: Jane');
  assert.deepEqual(merged, { text: 'Name: Jane', conflicts: 1 });
  assert.deepEqual(mergeCorrections('a b', 'a b c', 'a b d'), { text: 'a b c', conflicts: 1 });
});

test('text the user added or deleted stays added or deleted', () => {
  assert.equal(mergeCorrections('one two three', 'one three', 'one two three').text, 'one three');
  assert.equal(mergeCorrections('one two', 'one two\n\nReviewed.', 'one two').text, 'one two\n\nReviewed.');
  assert.equal(mergeCorrections('one two', 'one two', 'one two four').text, 'one two four');
});
