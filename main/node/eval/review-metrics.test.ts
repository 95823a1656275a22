import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confidenceAuroc, linesLost, numbersExact, tableNumbers, wrongCaughtAt } from './review-metrics';

test('a truth line is lost when most of its words are nowhere in the output; short lines are not counted', () => {
  const truth = 'Interest Expense, Net 12\nDiluted Shares Out. 40\nPage 4\nthe quick brown fox';
  // The first line read in another order, the second dropped, the third too short to count, the fourth half there.
  assert.deepEqual(linesLost('Net Expense, Interest 12 brown fox', truth, false), { lines: 3, lost: 1 });
  assert.deepEqual(linesLost('', truth, false), { lines: 3, lost: 3 });
  assert.deepEqual(linesLost('TOTAL DUE NOW', 'total due now', true), { lines: 1, lost: 0 });
});

test('AUROC: 1 when every wrong word is less sure than every right one, 0.5 when confidence says nothing', () => {
  assert.equal(confidenceAuroc([{ confidence: 0.2, right: false }, { confidence: 0.9, right: true }, { confidence: 0.8, right: true }]), 1);
  assert.equal(confidenceAuroc([{ confidence: 0.9, right: false }, { confidence: 0.2, right: true }]), 0);
  assert.equal(confidenceAuroc([{ confidence: 0.5, right: false }, { confidence: 0.5, right: true }]), 0.5);
  assert.equal(confidenceAuroc([{ confidence: 0.5, right: true }]), null);
});

test('wrong words caught when flagging the least sure share; ties at the cut are taken in proportion', () => {
  const ranked = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0].map((confidence, i) => ({ confidence, right: i !== 0 && i !== 5 }));
  assert.equal(wrongCaughtAt(ranked, 0.1), 0.5);
  assert.equal(wrongCaughtAt(ranked, 0.6), 1);
  const flat = Array.from({ length: 10 }, (_, i) => ({ confidence: 1, right: i > 1 }));
  assert.ok(Math.abs(wrongCaughtAt(flat, 0.2)! - 0.2) < 1e-12);
  assert.equal(wrongCaughtAt([{ confidence: 1, right: true }], 0.2), null);
});

test('table numbers keep their sign, point and parentheses; each is matched once', () => {
  const truth = '<table><tr><td>Growth</td><td>-2%</td><td>(6.4)</td></tr><tr><td>1,234.50</td><td>12</td><td>12</td></tr></table>';
  assert.deepEqual(tableNumbers(truth), ['-2%', '(6.4)', '1,234.50', '12', '12']);
  const read = '<table><tr><td>Growth</td><td>2%</td><td>(64)</td></tr><tr><td>1,234.50</td><td>12</td><td>x</td></tr></table>';
  assert.deepEqual(numbersExact(read, truth), { numbers: 5, exact: 2 });
});
