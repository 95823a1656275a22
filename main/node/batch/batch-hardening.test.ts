// What a worker does with a queue and a storage that others can write to (issue 59), with a real redis-server
// and real worker processes: a job stored too large is failed without being parsed; an output folder swapped
// for a link mid-job gets nothing written outside the root; a job whose output names a file the batch did not
// write leaves it alone; a kept page record with markup in it is refused, not copied into the outputs; a job's
// name with control characters reaches neither the worker's log nor `status` raw.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { scannedPdf } from '../../../test/support/bad-inputs';
import { sharp } from '../inputs/image-codec';
import { addonPath } from '../engine/native-addon';
import { BatchHarness, batchId, until } from './batch-harness';
import { decodeSettings, documentKey, QUEUE_NAME, sha256 } from './batch-job';
import { recordBatch } from './batch-state';
import { redisMissing } from './redis-process';

const skip = redisMissing() || (!existsSync(addonPath()) && 'native engine not built');
let h: BatchHarness;

before(async () => {
  if (skip) return;
  h = await BatchHarness.start();
  mkdirSync(join(h.root, 'docs'));
  // A blank page (quick to read), and three pages of a paragraph of a real scan (a second or more each: time to
  // swap a folder between them).
  writeFileSync(join(h.root, 'docs', 'blank.png'), await sharp({ create: { width: 300, height: 200, channels: 3, background: '#fff' } }).png().toBuffer());
  const scan = join(__dirname, '..', '..', '..', 'assets', 'samples', 'scanned-page.png');
  const gray = await sharp(scan).extract({ left: 60, top: 140, width: 400, height: 110 }).toColourspace('b-w').jpeg({ quality: 90 }).toBuffer({ resolveWithObject: true });
  writeFileSync(join(h.root, 'docs', 'stolen.pdf'), scannedPdf(gray.data, gray.info.width, gray.info.height, 3));
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
  const doc = 'scans/\u001b]0;owned\u0007\u001b[2J\u009b31m.pdf';
  const connection = new Redis(h.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAME, { connection });
  const worker = h.startWorker();
  try {
    await recordBatch(connection, { id, out: 'ocr', flags: [], outputs: { json: false, hocr: false }, documents: 1, pages: 1, added: new Date().toISOString() },
      { pages: Buffer.alloc(1), documents: Buffer.alloc(1) });
    await queue.add('pages', { v: 2, batch: id, doc, hash: 'a'.repeat(64), pages: [0, 0], pageCount: 1, place: [0, 0], out: 'ocr/x', flags: [], outputs: { json: false, hocr: false } });
    await until('the job to fail', async () => (await connection.hlen(`saccade:batch:${id}:failed`)) === 1, 30_000);
    await until('its line', () => worker.log().includes('owned'), 5000);
  } finally {
    await queue.close();
    connection.disconnect();
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  const escaped = 'scans/\\x1b]0;owned\\x07\\x1b[2J\\x9b31m.pdf';
  assert.ok(worker.log().includes(`${escaped}: `), worker.log());
  const status = h.batch(['status', id]);
  assert.ok(status.stdout.includes(`  ${escaped}: `), status.stdout);
  const json = h.batch(['status', id, '--json']);
  assert.equal((JSON.parse(json.stdout) as { failed: Array<{ doc: string }> }).failed[0]!.doc, doc);
  for (const printed of [worker.log(), status.stdout, status.stderr, json.stdout]) assert.doesNotMatch(printed, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
});

test('an output folder swapped for a link mid-job: nothing is written outside the root', { skip, timeout: 240_000 }, async () => {
  const outside = mkdtempSync(join(tmpdir(), 'saccade-outside-'));
  const added = h.add(['docs/stolen.pdf'], 'swap', '--json');
  assert.equal(added.status, 0, added.stderr);
  const id = batchId(added.stdout);
  const worker = h.startWorker();
  try {
    await until('a first page', () => h.pagesKept('swap') >= 1, 180_000);
    renameSync(join(h.root, 'swap'), join(h.root, 'swap-moved'));
    symlinkSync(outside, join(h.root, 'swap'));
    await until('the batch to finish', () => h.status(id).finished === true, 180_000);
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  assert.deepEqual(readdirSync(outside), [], 'nothing written outside the root');
  // The job wrote where its folder was opened, wherever that folder went.
  for (const name of ['stolen.md', 'stolen.hocr', 'stolen.json']) assert.ok(existsSync(join(h.root, 'swap-moved', name)), name);
  assert.equal(readdirSync(join(h.root, 'swap-moved', '.saccade-pages')).length, 1);
});

test('outputs never replace a file the batch did not write; a poisoned page record is refused', { skip, timeout: 240_000 }, async () => {
  const id = '5afe5afe5afe5afe';
  mkdirSync(join(h.root, 'notes'));
  writeFileSync(join(h.root, 'notes', 'keep.md'), 'my own notes\n');
  const hash = sha256(readFileSync(join(h.root, 'docs', 'blank.png')));
  const connection = new Redis(h.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAME, { connection });
  const worker = h.startWorker();
  const failed = async () => connection.hgetall(`saccade:batch:${id}:failed`);
  try {
    // A job written into Redis whose output is the user's notes/keep(.md).
    await recordBatch(connection, { id, out: 'notes', flags: [], outputs: { json: false, hocr: true }, documents: 1, pages: 1, added: new Date().toISOString() },
      { pages: Buffer.alloc(1), documents: Buffer.alloc(1) });
    await queue.add('pages', { v: 2, batch: id, doc: 'docs/blank.png', hash, pages: [0, 0], pageCount: 1, place: [0, 0], out: 'notes/keep', flags: [], outputs: { json: false, hocr: true } });
    await until('the job to fail', async () => Object.keys(await failed()).length === 1, 120_000).catch((err: Error) => assert.fail(`${err.message}\n${worker.log()}`));
    assert.match((await failed())['docs/blank.png']!, /^keep\.md is there already and this batch did not write it: it is not replaced/);
    assert.equal(readFileSync(join(h.root, 'notes', 'keep.md'), 'utf8'), 'my own notes\n');

    // A batch written whole, then its Markdown deleted and its page's record given markup: the re-add's job
    // refuses the record and writes nothing from it.
    const added = h.add(['docs/blank.png'], 'clean');
    const clean = batchId(added.stdout);
    await until('the batch to finish', () => h.status(clean).finished === true, 120_000);
    const record = join(h.root, 'clean', '.saccade-pages', documentKey(hash, decodeSettings([]).key), '0.json');
    const poisoned = JSON.parse(readFileSync(record, 'utf8')) as { recognised: unknown[] };
    poisoned.recognised = [{ kind: 'table', lines: ['x'], table: { leads: ['<script>alert(1)</script><table><tr><td>'], tail: '</td></tr></table>' } }];
    rmSync(record);
    writeFileSync(record, JSON.stringify(poisoned));
    rmSync(join(h.root, 'clean', 'blank.md'));
    const again = h.add(['docs/blank.png'], 'clean');
    assert.match(again.stdout, /1 page\(s\) \(1 read already\), 1 job\(s\) queued/);
    await until('the document to fail', () => (h.status(clean).failed as unknown[]).length === 1, 60_000);
    assert.deepEqual(h.status(clean).failed, [{ doc: 'docs/blank.png', reason: 'the kept page 1 is not a page record: region 1\'s table holds other markup than a table\'s tags' }]);
    assert.ok(!existsSync(join(h.root, 'clean', 'blank.md')));
  } finally {
    await queue.close();
    connection.disconnect();
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
});
