// What a worker does with a queue and a storage that others can write to (issue 59), with a real redis-server
// and real worker processes: a job stored too large is failed without being parsed.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { addonPath } from '../native-addon';
import { BatchHarness, until } from './batch-harness';
import { QUEUE_NAME } from './batch-job';
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
