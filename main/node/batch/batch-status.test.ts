// What `npm run batch -- status` prints: progress, rate, time left at that rate, workers, and failures; the rate
// is over the last pages read, whenever in the clock's minute they were read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RATE_STALE_MS, recentRate, type BatchStatus } from './batch-state';
import { finished, secondsLeft, statusText } from './batch-status';

const RUNNING: BatchStatus = {
  id: '0123456789abcdef', out: 'ocr', flags: [], outputs: { json: false, hocr: true }, documents: 4, pages: 120,
  donePages: 30, doneDocuments: 1, added: '2026-12-04T00:00:00.000Z', pagesPerSecond: 0.5,
  failed: [{ doc: 'scans/bad.pdf', reason: 'not a readable PDF' }],
};

test('a running batch: pages, documents, rate, time left at that rate, workers and failures', () => {
  assert.equal(secondsLeft(RUNNING), 180);
  assert.equal(finished(RUNNING), false);
  assert.equal(statusText(RUNNING, 2, []), [
    'batch 0123456789abcdef -> ocr: 30/120 pages (25%), 1/4 documents written, 0.50 pages/s over the last 20 pages read, about 3 min left, 2 worker(s) alive',
    'failed (1):',
    '  scans/bad.pdf: not a readable PDF',
  ].join('\n'));
});

test('a batch with nothing read lately, and one whose documents are all written or failed', () => {
  assert.match(statusText({ ...RUNNING, pagesPerSecond: null, failed: [] }, 0, []), /no pages read lately, time left unknown, 0 worker\(s\) alive$/);
  const done = { ...RUNNING, donePages: 120, doneDocuments: 3, pagesPerSecond: null };
  assert.equal(finished(done), true);
  assert.match(statusText(done, 1, []), /120\/120 pages \(100%\), 3\/4 documents written, no pages read lately, finished, 1 worker\(s\) alive/);
});

test('names and reasons from Redis are escaped: a control sequence in a name prints as text', () => {
  const text = statusText({ ...RUNNING, out: 'ocr\u001b[2J', failed: [{ doc: 'scans/\u001b]0;owned\u0007.pdf', reason: 'not a readable PDF\u009b' }] }, 1, []);
  assert.match(text, /-> ocr\\x1b\[2J: /);
  assert.match(text, /\n {2}scans\/\\x1b\]0;owned\\x07\.pdf: not a readable PDF\\x9b$/);
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
});

test('the rate is over the last pages read: 0.15 pages/s whenever in the clock\'s minute it is asked', () => {
  const start = Date.UTC(2026, 11, 7, 12, 0, 50);
  // 20 pages, one every 6.67 s: the window spans a minute's turn.
  const times = Array.from({ length: 20 }, (_, k) => start + (19 - k) * (20_000 / 3));
  for (const askedAfter of [0, 5_000, 60_000]) assert.ok(Math.abs(recentRate(times, times[0]! + askedAfter)! - 0.15) < 1e-9);
  assert.equal(recentRate(times.slice(0, 1), times[0]!), null, 'one page is no rate');
  assert.equal(recentRate(times, times[0]! + RATE_STALE_MS + 1), null, 'nothing read lately');
});

test('jobs in hand: each with its worker, and one whose lock ran out as retrying', () => {
  const text = statusText({ ...RUNNING, failed: [] }, 1, [
    { doc: 'scans/a.pdf', pages: [1, 8], worker: 'scan-01:4242', retrying: false },
    { doc: 'scans/b.pdf', pages: [9, 9], worker: 'scan-02:77', retrying: true },
  ]);
  assert.deepEqual(text.split('\n').slice(1), [
    '  reading scans/a.pdf pages 1-8 (scan-01:4242)',
    '  retrying scans/b.pdf pages 9-9: scan-02:77 stopped renewing its lock; the next worker to check takes it',
  ]);
});
