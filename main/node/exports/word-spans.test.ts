import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wordSpans } from './word-spans';

const box = (x0: number, x1: number) => ({ x0, x1, y0: 0, y1: 20 });

test('words apart keep their boxes', () => {
  assert.deepEqual(wordSpans([box(0, 30), box(40, 60), box(70, 75)]), [[0, 30], [40, 60], [70, 75]]);
});

test('touching and overlapping words are laid apart at the middle of their meeting, each within its own box', () => {
  // "it" and "in" as the model placed them: touching at 1004.
  assert.deepEqual(wordSpans([box(996, 1004), box(1004, 1011)]), [[996, 1002], [1006, 1011]]);
  // Overlapping by 10: the boundary is the middle of the overlap.
  assert.deepEqual(wordSpans([box(0, 50), box(40, 80)]), [[0, 43], [47, 80]]);
});

test('a word nested in its neighbour keeps its own side of their middles', () => {
  const spans = wordSpans([box(0, 100), box(60, 70)]);
  assert.ok(spans[0]![1] < spans[1]![0], JSON.stringify(spans));
  assert.ok(spans[1]![0] >= 60 && spans[1]![1] <= 70, JSON.stringify(spans));
  assert.ok(spans[0]![1] > 0);
});

test('a word whose box lies behind the word before keeps its box', () => {
  // "FOR A" where the model wrote "A" looking at the start of "FOR".
  assert.deepEqual(wordSpans([box(1378, 1444), box(1386, 1393), box(1500, 1520)]), [[1378, 1444], [1386, 1393], [1500, 1520]]);
});

test('words too narrow for the gap are still laid, side by side', () => {
  const spans = wordSpans([box(10, 12), box(11, 13)]);
  assert.ok(spans.every(([a, b]) => b > a), JSON.stringify(spans));
  assert.ok(spans[0]![1] <= spans[1]![0]);
});
