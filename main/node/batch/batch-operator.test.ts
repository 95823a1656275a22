// What an operator expects of `npm run batch` (issue 60), with a real redis-server and real worker processes:
// two documents with the same bytes each get their outputs; a re-add restores what is missing from the output
// folder, and the counts are of distinct pages and documents; `status` exits 1 when a document failed; `list`
// and `clear`; `status` shows the jobs being read with their workers, and a killed worker's as retrying; a
// Redis outage is two lines of a worker's log; an idle worker stopped says that no page was being read;
// paths typed under `npm run` are taken from the folder they were typed in, and one outside the root names
// --root.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { scannedPdf } from '../../../test/support/bad-inputs';
import { sharp } from '../inputs/image-codec';
import { addonPath } from '../engine/native-addon';
import { BatchHarness, batchId, until } from './batch-harness';
import { QUEUE_NAME } from './batch-job';
import { redisMissing } from './redis-process';

const skip = redisMissing() || (!existsSync(addonPath()) && 'native engine not built');
const PROJECT = join(__dirname, '..', '..', '..');
let h: BatchHarness;

before(async () => {
  if (skip) return;
  h = await BatchHarness.start();
  const blank = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#fff' } }).png().toBuffer();
  mkdirSync(join(h.root, 'b'));
  writeFileSync(join(h.root, 'b', 'a.png'), blank);
  writeFileSync(join(h.root, 'b', 'c.png'), blank);
  writeFileSync(join(h.root, 'b', 'corrupt.pdf'), '%PDF-1.4 this is not a PDF');
  // Two pages of a paragraph of a real scan: a job that stays in hand for seconds.
  const scan = join(PROJECT, 'assets', 'samples', 'scanned-page.png');
  const gray = await sharp(scan).extract({ left: 60, top: 140, width: 400, height: 110 }).toColourspace('b-w').jpeg({ quality: 90 }).toBuffer({ resolveWithObject: true });
  mkdirSync(join(h.root, 'slow'));
  writeFileSync(join(h.root, 'slow', 'strip.pdf'), scannedPdf(gray.data, gray.info.width, gray.info.height, 2));
});

after(async () => {
  if (!skip) await h.close();
});

/** Runs a worker until the batch is finished, then stops it. */
async function drain(id: string): Promise<void> {
  const worker = h.startWorker();
  try {
    await until('the batch to finish', () => h.status(id).finished === true, 120_000).catch((err: Error) => assert.fail(`${err.message}\n${worker.log()}`));
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
}

test('twins are both written; a re-add restores a kept page and a Markdown that went missing; counts never pass the totals', { skip, timeout: 180_000 }, async () => {
  const added = h.add(['b'], 'twins');
  assert.equal(added.status, 0, added.stderr);
  assert.match(added.stdout, /^batch [0-9a-f]{16}: 3 document\(s\) \(1 not added\), 2 page\(s\) \(0 read already\), 2 job\(s\) queued/);
  const id = batchId(added.stdout);
  await drain(id);
  let s = h.status(id);
  assert.deepEqual([s.donePages, s.pages, s.doneDocuments, s.documents, (s.failed as unknown[]).length], [2, 2, 2, 3, 1]);
  for (const name of ['a.md', 'a.hocr', 'c.md', 'c.hocr']) assert.ok(existsSync(join(h.root, 'twins', name)), name);

  // The twins' one kept page moved away, and c's Markdown deleted.
  const store = join(h.root, 'twins', '.saccade-pages');
  const [key] = readdirSync(store);
  renameSync(join(store, key!, '0.json'), join(h.root, 'moved-away.json'));
  rmSync(join(h.root, 'twins', 'c.md'));
  const again = h.add(['b'], 'twins');
  assert.match(again.stdout, new RegExp(`^batch ${id}: 3 document\\(s\\) \\(1 not added\\), 2 page\\(s\\) \\(0 read already\\), 2 job\\(s\\) queued`));
  s = h.status(id);
  assert.deepEqual([s.donePages, s.doneDocuments, s.finished], [0, 1, false], 'what is on the storage now is counted');
  await drain(id);
  s = h.status(id);
  assert.deepEqual([s.donePages, s.pages, s.doneDocuments, s.documents], [2, 2, 2, 3]);
  assert.ok(existsSync(join(h.root, 'twins', 'c.md')));

  // With every page kept, a deleted Markdown alone is queued again.
  rmSync(join(h.root, 'twins', 'a.md'));
  assert.match(h.add(['b'], 'twins').stdout, /2 page\(s\) \(2 read already\), 1 job\(s\) queued/);
  assert.equal(h.status(id).finished, false);
  await drain(id);
  assert.ok(existsSync(join(h.root, 'twins', 'a.md')));
  const text = h.batch(['status', id]);
  assert.equal(text.status, 1, 'a document failed: exit status 1');
  assert.match(text.stdout, /2\/2 pages \(100%\), 2\/3 documents written, .*finished/);
});

test('list shows every batch; clear takes a batch\'s jobs and counts out of Redis and leaves its outputs', { skip, timeout: 60_000 }, async () => {
  const added = h.add(['b/a.png'], 'listed', '--json');
  const id = batchId(added.stdout);
  const list = h.batch(['list']);
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout.split('\n')[0]!, new RegExp(`^${id}  added \\S+  -> listed: 0/1 pages, 0/1 documents written, 0 failed, not finished$`));
  assert.ok((JSON.parse(h.batch(['list', '--json']).stdout) as Array<{ id: string }>).some((b) => b.id === id));
  const cleared = h.batch(['clear', id]);
  assert.equal(cleared.status, 0, cleared.stderr);
  assert.equal(cleared.stdout.trim(), `batch ${id} cleared: 1 job(s) removed; its outputs and kept pages stay on the storage`);
  const connection = new Redis(h.redis.url);
  try {
    assert.deepEqual(await connection.keys(`bull:${QUEUE_NAME}:${id}-*`), []);
    assert.deepEqual(await connection.keys(`saccade:batch:${id}*`), []);
  } finally {
    connection.disconnect();
  }
  assert.doesNotMatch(h.batch(['list']).stdout, new RegExp(id));
  const gone = h.batch(['status', id]);
  assert.equal(gone.status, 2);
  assert.match(gone.stderr, new RegExp(`error: no batch ${id} in this Redis`));
  assert.match(h.batch(['clear']).stderr, /clear takes one batch id/);
});

test('an idle worker stopped says that no page was being read', { skip, timeout: 60_000 }, async () => {
  const worker = h.startWorker();
  await until('the worker to be ready', () => worker.log().includes('worker ready'), 30_000);
  worker.child.kill('SIGTERM');
  assert.equal(await worker.exited, 0, worker.log());
  assert.match(worker.log(), /stopping \(no page being read\)/);
  assert.doesNotMatch(worker.log(), /stopping after the page being read/);
});

test('status shows a job being read with its worker, and a killed worker\'s job as retrying', { skip, timeout: 120_000 }, async () => {
  const id = batchId(h.add(['slow/strip.pdf'], 'in-hand').stdout);
  const worker = h.startWorker('--lock-seconds', '4');
  const said = () => h.batch(['status', id]).stdout;
  try {
    await until('the job in hand', () => new RegExp(`\n {2}reading slow/strip\\.pdf pages 1-2 \\(.+:${worker.child.pid}\\)`).test(said()), 60_000);
  } finally {
    worker.child.kill('SIGKILL');
    await worker.exited;
  }
  // No worker is left to run the stalled check, so the job stays in hand, its lock run out.
  await until('the job to be retrying', () => new RegExp(`\n {2}retrying slow/strip\\.pdf pages 1-2: .+:${worker.child.pid} stopped renewing its lock`).test(said()), 30_000);
  assert.equal(h.batch(['clear', id]).status, 0);
});

test('a Redis outage is one line when the connection is lost and one when it is back', { skip, timeout: 60_000 }, async () => {
  const worker = h.startWorker();
  try {
    await until('the worker to be ready', () => worker.log().includes('worker ready'), 30_000);
    await h.redis.stop();
    await new Promise((r) => setTimeout(r, 3000));
    await h.redis.resume();
    await until('the line that Redis is back', () => worker.log().includes('Redis back after'), 30_000);
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  const lines = worker.log().split('\n');
  assert.equal(lines.filter((l) => l.startsWith('lost Redis (')).length, 1, worker.log());
  assert.equal(lines.filter((l) => /^Redis back after \d+\.\d s$/.test(l)).length, 1, worker.log());
  assert.equal(lines.filter((l) => l.includes('ECONNREFUSED')).length, 1, worker.log());
});

test('paths typed under npm run are taken from the folder they were typed in; one outside the root names --root', { skip, timeout: 60_000 }, () => {
  // What npm sets for `npm --prefix <project> run batch` typed in the root.
  const npm = { INIT_CWD: h.root, npm_package_json: join(PROJECT, 'package.json') };
  const added = h.batch(['add', 'b/a.png', '-o', 'typed'], npm);
  assert.equal(added.status, 0, added.stderr);
  assert.match(added.stdout, /^batch [0-9a-f]{16}: 1 document\(s\), 1 page\(s\)/);
  const outside = h.batch(['add', join(h.root, 'b', 'a.png'), '-o', join(PROJECT, '..', 'elsewhere-out')], npm);
  assert.equal(outside.status, 2);
  assert.match(outside.stderr, /^error: .*elsewhere-out is not under the root .*: .*give --root a folder that holds them both$/m);
});
