// What a worker does with a queue and a storage that others can write to (issue 59), with a real redis-server
// and real worker processes: a job stored too large is failed without being parsed; a job's name with control
// characters reaches neither the worker's log nor `status` raw.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { addonPath } from '../native-addon';
import { BatchHarness, until } from './batch-harness';
import { QUEUE_NAME } from './batch-job';
import { recordBatch } from './batch-state';
import { redisMissing } from './redis-process';

const skip = redisMissing() || (!existsSync(addonPath()) && 'native engine not built');
let h: BatchHarness;

before(async () => {
  if (!skip) h = await BatchHarness.start();
});

after(async () => {
  if (!skip) await h.close();
});

/** A process's peak resident memory so far, in bytes (Linux). */
function peakRss(pid: number): number {
  return 1024 * Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

test('a job stored in Redis too large is failed unread: the worker\'s memory does not grow with it', { skip, timeout: 120_000 }, async () => {
  const worker = h.startWorker();
  const connection = new Redis(h.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAME, { connection });
  try {
    await until('the worker to be ready', () => worker.log().includes('worker ready'), 60_000);
    const before = peakRss(worker.child.pid!);
    // 32 MB of empty objects, which JSON.parse would make into 11 million objects (about 600 MB). Written
    // straight into the job's hash, as anyone with the Redis password can; the delay keeps it from the worker
    // until it is written.
    const payload = `{"v":1,"pad":[${'{},'.repeat(11_000_000)}{}]}`;
    await queue.add('pages', {}, { jobId: 'huge', delay: 1500 });
    await connection.hset(`bull:${QUEUE_NAME}:huge`, 'data', payload);
    await until('the job to fail', async () => (await queue.getJobState('huge')) === 'failed', 60_000);
    const grown = peakRss(worker.child.pid!) - before;
    assert.ok(grown < 256 * 2 ** 20, `the worker's peak memory grew by ${(grown / 2 ** 20).toFixed(0)} MB for a ${(payload.length / 2 ** 20).toFixed(0)} MB job`);
    await until('its line', () => worker.log().includes('job huge:'), 5000);
    assert.match(worker.log(), new RegExp(`job huge: a bad job: its payload is ${payload.length} characters, over 16384\\n`));
  } finally {
    await queue.close();
    connection.disconnect();
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
});

test('a job\'s name with control characters is escaped in the worker\'s log and in status', { skip, timeout: 60_000 }, async () => {
  const id = 'badc0ffee0ddf00d';
  const doc = 'scans/\u001b]0;owned\u0007\u001b[2J.pdf';
  const connection = new Redis(h.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAME, { connection });
  const worker = h.startWorker();
  try {
    await recordBatch(connection, { id, out: 'ocr', flags: [], outputs: { json: false, hocr: false }, documents: 1, pages: 1, added: new Date().toISOString() }, { pages: 0, documents: 0 });
    await queue.add('pages', { v: 1, batch: id, doc, hash: 'a'.repeat(64), pages: [0, 0], pageCount: 1, out: 'ocr/x', flags: [], outputs: { json: false, hocr: false } });
    await until('the job to fail', async () => (await connection.hlen(`saccade:batch:${id}:failed`)) === 1, 30_000);
    await until('its line', () => worker.log().includes('owned'), 5000);
  } finally {
    await queue.close();
    connection.disconnect();
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  const escaped = 'scans/\\x1b]0;owned\\x07\\x1b[2J.pdf';
  assert.ok(worker.log().includes(`${escaped}: `), worker.log());
  const status = h.batch(['status', id]);
  assert.ok(status.stdout.includes(`  ${escaped}: `), status.stdout);
  for (const printed of [worker.log(), status.stdout, status.stderr]) assert.doesNotMatch(printed, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
});
