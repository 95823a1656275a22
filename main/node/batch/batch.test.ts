// Batches through BullMQ on a real Redis (Debian's redis-server, started here on a free loopback port with
// append-only persistence), read by real worker processes with the real engine and the shipped model:
// - two workers give the Markdown one `npm run ocr` of the same documents gives, byte for byte (and its hOCR's
//   words), a corrupt file and a page bomb fail alone with their reasons, and adding the batch again reads
//   nothing;
// - a worker killed with SIGKILL in the middle of a page, Redis stopped and started mid-batch, and a worker
//   stopped with SIGTERM (which finishes its page first) lose no page and read none twice;
// - jobs written into Redis by someone else that name paths out of the root, or unknown options, fail alone
//   with one line each.
// The documents are a real typewritten scan (../shared/data/real-dev, else the shipped sample scan) and a
// nine-page PDF of it, which takes two jobs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { hugePng, scannedPdf } from '../../../test/support/bad-inputs';
import { sharp } from '../inputs/image-codec';
import { addonPath } from '../engine/native-addon';
import { BatchHarness, batchId, until } from './batch-harness';
import { QUEUE_NAME, sha256 } from './batch-job';
import { redisMissing } from './redis-process';

const ROOT = join(__dirname, '..', '..', '..');
const REAL_PAGE = join(ROOT, '..', 'shared', 'data', 'real-dev', 'ehri-typescripts-en', 'images', 'EHRI-BF-19380509b_EN_01.jpg');
const skip = redisMissing() || (!existsSync(addonPath()) && 'native engine not built');

let h: BatchHarness;
let root: string;

before(async () => {
  if (skip) return;
  h = await BatchHarness.start();
  root = h.root;
  mkdirSync(join(root, 'scans'));
  const page = existsSync(REAL_PAGE) ? REAL_PAGE : join(ROOT, 'assets', 'samples', 'scanned-page.png');
  const gray = await sharp(page).toColourspace('b-w').jpeg({ quality: 90 }).toBuffer({ resolveWithObject: true });
  writeFileSync(join(root, 'scans', 'letter.jpg'), gray.data);
  writeFileSync(join(root, 'scans', 'letter-9.pdf'), scannedPdf(gray.data, gray.info.width, gray.info.height, 9));
  mkdirSync(join(root, 'broken'));
  writeFileSync(join(root, 'broken', 'corrupt.pdf'), '%PDF-1.4 this is not a PDF');
  writeFileSync(join(root, 'broken', 'bomb.png'), hugePng());
  // What one `npm run ocr` writes for the same documents, to compare with.
  const cli = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'main', 'node', 'cli.ts'), join(root, 'scans', 'letter.jpg'), join(root, 'scans', 'letter-9.pdf'),
    '-o', join(root, 'single'), '--hocr'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
});

after(async () => {
  if (skip) return;
  await h.close();
});

/** The words of an hOCR file in order, each with its line and page ids: everything but the boxes. */
function hocrWords(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/<span class="ocrx_word" id="(word_\d+)_\d+" [^>]*>([^<]*)<\/span>/g)].map((m) => `${m[1]} ${m[2]}`);
}

/**
 * The Markdown is the bytes `npm run ocr` writes. The hOCR has the same words on the same pages, but not always
 * the same boxes: fixation picks its focal layers from the first region of each kind a worker's model reads
 * (ModelMemory.image_share), and the boxes come from where those layers looked, so a worker that read other
 * pages first may place a word's edge a few pixels away.
 */
function sameAsSingleRun(out: string, names: string[]): void {
  for (const name of names) {
    assert.ok(readFileSync(join(root, out, `${name}.md`)).equals(readFileSync(join(root, 'single', `${name}.md`))), `${out}/${name}.md differs from npm run ocr's`);
    assert.deepEqual(hocrWords(join(root, out, `${name}.hocr`)), hocrWords(join(root, 'single', `${name}.hocr`)), `${out}/${name}.hocr's words differ from npm run ocr's`);
  }
}

test('two workers write what one npm run ocr writes; bad files fail alone; adding again reads nothing', { skip, timeout: 400_000 }, async () => {
  const added = h.add(['scans', 'broken'], 'out');
  assert.equal(added.status, 0, added.stderr);
  assert.match(added.stdout, /^batch [0-9a-f]{16}: 4 document\(s\) \(2 not added\), 10 page\(s\) \(0 read already\), 3 job\(s\) queued/);
  assert.match(added.stderr, /not added: broken\/bomb\.png: .*pixels/);
  assert.match(added.stderr, /not added: broken\/corrupt\.pdf: not a readable PDF/);
  const id = batchId(added.stdout);
  const workers = [h.startWorker(), h.startWorker()];
  try {
    await until('the batch to finish', () => h.status(id).finished === true);
  } finally {
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
  }
  const s = h.status(id);
  assert.equal(s.donePages, 10);
  assert.equal(s.doneDocuments, 2);
  assert.deepEqual((s.failed as Array<{ doc: string }>).map((f) => f.doc), ['broken/bomb.png', 'broken/corrupt.pdf']);
  // Both workers read: the nine-page PDF's two jobs, or one of them and the letter.
  for (const w of workers) assert.match(w.log(), /pages \d+-\d+, [1-9]\d* read in/, w.log());
  sameAsSingleRun('out', ['letter', 'letter-9']);
  // The output folder holds the names npm run ocr writes, figures included, and no temporary name: a figure is
  // kept in the store with its page and put in place with its document.
  assert.deepEqual(readdirSync(join(root, 'out')).filter((n) => !n.startsWith('.')).sort(), readdirSync(join(root, 'single')).sort());
  const store = join(root, 'out', '.saccade-pages');
  assert.ok(readdirSync(store).some((key) => readdirSync(join(store, key)).some((f) => /^p\d+-figure\d+\.png$/.test(f))), 'a figure kept in the store');

  const again = h.add(['scans', 'broken'], 'out');
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`^batch ${id}: 4 document\\(s\\) \\(2 not added\\), 10 page\\(s\\) \\(10 read already\\), 0 job\\(s\\) queued`));
  assert.equal(h.status(id).donePages, 10);
});

test('a worker killed mid-page, Redis restarted and a worker stopped by SIGTERM lose no page and read none twice', { skip, timeout: 400_000 }, async () => {
  const added = h.add(['scans/letter-9.pdf'], 'resilient');
  assert.equal(added.status, 0, added.stderr);
  const id = batchId(added.stdout);
  // A short lock, so that the killed worker's job is taken over within seconds.
  const first = h.startWorker('--lock-seconds', '4');
  await until('a first page', () => h.pagesKept('resilient') >= 1);
  first.child.kill('SIGKILL');
  await first.exited;
  const killedAt = h.pagesKept('resilient');

  const second = h.startWorker('--lock-seconds', '4');
  await until('a page after the kill', () => h.pagesKept('resilient') > killedAt);
  await h.redis.stop();
  await new Promise((r) => setTimeout(r, 1500));
  await h.redis.resume();
  const restartedAt = h.pagesKept('resilient');
  await until('a page after the restart', () => h.pagesKept('resilient') > restartedAt);
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0, second.log());
  assert.match(second.log(), /stopping after the page being read/);
  const stoppedAt = h.pagesKept('resilient');
  assert.ok(stoppedAt < 9, `the batch was not finished when the worker stopped (${stoppedAt} pages)`);

  const third = h.startWorker();
  try {
    await until('the batch to finish', () => h.status(id).finished === true);
  } finally {
    third.child.kill('SIGTERM');
    await third.exited;
  }
  const s = h.status(id);
  assert.equal(s.donePages, 9, 'every page counted once');
  assert.equal(s.doneDocuments, 1);
  assert.deepEqual(s.failed, []);
  assert.equal(h.pagesKept('resilient'), 9);
  sameAsSingleRun('resilient', ['letter-9']);
});

test('jobs that name paths out of the root or unknown options fail alone, with one line each', { skip, timeout: 120_000 }, async () => {
  const outside = mkdtempSync(join(tmpdir(), 'saccade-outside-'));
  writeFileSync(join(outside, 'secret.pdf'), '%PDF-1.4');
  symlinkSync(outside, join(root, 'scans', 'link-out'));
  const connection = new Redis(h.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAME, { connection });
  const batchId = 'feedfacecafebeef';
  let reasons: Record<string, string> = {};
  const job = { v: 2, batch: batchId, hash: 'a'.repeat(64), pages: [0, 0], pageCount: 1, place: [0, 0], out: 'hostile/x', flags: [], outputs: { json: false, hocr: false } };
  try {
    await queue.addBulk([
      { name: 'pages', data: { ...job, doc: '../secret.pdf' } },
      { name: 'pages', data: { ...job, doc: join(outside, 'secret.pdf') } },
      { name: 'pages', data: { ...job, doc: 'scans/link-out/secret.pdf' } },
      { name: 'pages', data: { ...job, doc: 'scans/letter.jpg', flags: ['--pdf'] } },
      { name: 'pages', data: { ...job, doc: 'scans/letter-9.pdf', hash: sha256(readFileSync(join(root, 'scans', 'letter-9.pdf'))), pageCount: 9, flags: ['--model', '/tmp/anything'] } },
    ]);
    const worker = h.startWorker();
    const failed = `saccade:batch:${batchId}:failed`;
    try {
      let count = 0;
      const counting = setInterval(() => void connection.hlen(failed).then((n) => (count = n)), 200);
      await until('five failures', () => count === 5, 60_000).finally(() => clearInterval(counting));
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    reasons = await connection.hgetall(failed);
  } finally {
    await queue.close();
    connection.disconnect();
  }
  assert.match(reasons['../secret.pdf']!, /^a bad job: job doc "\.\.\/secret\.pdf" leaves the root$/);
  assert.match(reasons[join(outside, 'secret.pdf')]!, /^a bad job: job doc ".*" leaves the root$/);
  assert.match(reasons['scans/link-out/secret.pdf']!, /^scans\/link-out\/secret\.pdf leads out of the root$/);
  assert.match(reasons['scans/letter.jpg']!, /^a bad job: --pdf is not a decode option/);
  assert.equal(reasons['scans/letter-9.pdf'], 'the model /tmp/anything is not one this worker was started with (--model)');
  assert.ok(!existsSync(join(root, 'hostile')), 'nothing was written for a refused job');
});
