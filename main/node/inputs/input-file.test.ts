// Input files are bounded by the bytes they give, not by the size they report: /proc files say 0 bytes.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { MAX_DOCUMENT_BYTES } from '../../../common/protocol';
import { readInput } from './input-file';

const noProc = !existsSync('/proc/self/pagemap') && 'no /proc/self/pagemap on this system';

// First in the file, so that the process's peak RSS before it is its RSS now.
test('/proc/self/pagemap, which reports 0 bytes and gives gigabytes, is refused once it gives more than the limit', { skip: noProc }, () => {
  const before = process.memoryUsage().rss;
  assert.throws(() => readInput('/proc/self/pagemap'), /^Error: it holds more than 200 MB, whatever size it reports; the largest file Saccade opens is 200 MB$/);
  const grew = process.resourceUsage().maxRSS * 1024 - before;
  assert.ok(grew < MAX_DOCUMENT_BYTES + (64 << 20), `the read held ${(grew / 2 ** 20).toFixed(0)} MB`);
});

test('a /proc file that reports 0 bytes is read to its end', { skip: noProc }, () => {
  const status = Buffer.from(readInput('/proc/self/status')).toString('utf8');
  assert.match(status, /^Name:/);
  assert.match(status, /\nPid:\s+\d+\n/);
});
