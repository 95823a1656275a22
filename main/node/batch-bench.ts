// `npm run bench:batch -- [--pages N] [--data DIR] [--jobs-for-memory N] [--json FILE]`: what the queue costs,
// measured side by side in one run on the same real scans (N typewritten pages of real-dev, each its own
// document): pages/s of `npm run ocr` alone, of one worker and of two workers (a core each) through a Redis of
// its own; the queue's overhead per page (a worker's time outside reading pages and loading its model); Redis
// commands per page; and Redis memory per queued page and per finished job, from INFO memory around N
// synthetic jobs added and then finished. Needs the built app (npm run build) and redis-server.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { wholeNumber } from './inputs/number-options';
import { PAGES_PER_JOB, QUEUE_NAME } from './batch/batch-job';
import { connect, openQueue } from './batch/batch-queue';
import { redisMissing, RedisProcess } from './batch/redis-process';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'out', 'main', 'cli.js');
const BATCH = join(ROOT, 'out', 'main', 'batch.js');

interface Args { pages: number; data: string; memoryJobs: number; json: string | null }

function parseArgs(argv: string[]): Args {
  const a: Args = { pages: 10, data: join(ROOT, '..', 'shared', 'data', 'real-dev'), memoryJobs: 10_000, json: null };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[++i] ?? '';
    if (argv[i - 1] === '--pages') a.pages = wholeNumber('--pages', v, 1, 1000);
    else if (argv[i - 1] === '--data') a.data = v;
    else if (argv[i - 1] === '--jobs-for-memory') a.memoryJobs = wholeNumber('--jobs-for-memory', v, 100, 1_000_000);
    else if (argv[i - 1] === '--json') a.json = v;
    else throw new Error(`unknown option ${argv[i - 1]}`);
  }
  return a;
}

async function info(redis: Redis, section: string): Promise<Map<string, string>> {
  const text = await redis.info(section);
  return new Map(text.split('\r\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]));
}

async function commandsRun(redis: Redis): Promise<number> {
  let calls = 0;
  for (const value of (await info(redis, 'commandstats')).values()) calls += Number(/calls=(\d+)/.exec(value)?.[1] ?? 0);
  return calls;
}

/**
 * One run of workers over a batch: wall seconds from the workers' start to the last document, their logs, and
 * the Redis commands this benchmark sent while it watched (left out of the workers' count).
 */
async function throughWorkers(redisUrl: string, redis: Redis, root: string, out: string, workers: string[][]): Promise<{ seconds: number; logs: string[]; polls: number }> {
  const added = spawnSync(process.execPath, [BATCH, 'add', join(root, 'scans'), '-o', join(root, out), '--root', root, '--redis', redisUrl], { encoding: 'utf8' });
  if (added.status !== 0) throw new Error(added.stderr);
  const id = /^batch ([0-9a-f]{16})/.exec(added.stdout)![1]!;
  const documents = Number(await redis.hget(`saccade:batch:${id}`, 'documents'));
  const started = performance.now();
  const children = workers.map((extra) => {
    const child = spawn(process.execPath, [BATCH, 'work', '--root', root, '--redis', redisUrl, ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    const log = { text: '' };
    child.stderr!.on('data', (d: Buffer) => void (log.text += d.toString()));
    return { child, log, exited: new Promise((resolve) => child.once('exit', resolve)) };
  });
  let polls = 1;
  while (Number(await redis.hget(`saccade:batch:${id}`, 'doneDocuments')) < documents) {
    await new Promise((r) => setTimeout(r, 50));
    polls++;
  }
  const seconds = (performance.now() - started) / 1000;
  for (const c of children) c.child.kill('SIGTERM');
  await Promise.all(children.map((c) => c.exited));
  return { seconds, logs: children.map((c) => c.log.text), polls };
}

/** Seconds a worker's log says it spent loading its model and reading pages. */
function workSeconds(log: string): { load: number; read: number } {
  const sum = (re: RegExp) => [...log.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
  return { load: sum(/model loaded in ([\d.]+) s/g), read: sum(/read in ([\d.]+) s/g) };
}

/** Redis memory for `n` queued jobs like a batch's, then after a worker finished them. */
async function memoryPerJob(redisUrl: string, redis: Redis, n: number): Promise<{ queuedBytes: number; finishedBytes: number }> {
  const queue = openQueue(redis);
  const used = async () => Number((await info(redis, 'memory')).get('used_memory'));
  await queue.obliterate({ force: true });
  const before = await used();
  const data = { v: 2, batch: '0123456789abcdef', doc: 'archive/box-0042/folder-07/scan-000123.pdf', hash: 'a'.repeat(64), pages: [0, 7], pageCount: 24,
    place: [4123, 98_952], out: 'ocr/box-0042/folder-07/scan-000123', flags: ['--mode', 'spec'], outputs: { json: false, hocr: true } };
  for (let i = 0; i < n; i += 1000) {
    await queue.addBulk(Array.from({ length: Math.min(1000, n - i) }, (_, k) => ({ name: 'pages', data, opts: { jobId: `0123456789abcdef-${4123 + i + k}-0` } })));
  }
  const queued = await used();
  const connection = connect(redisUrl);
  const worker = new Worker(QUEUE_NAME, async () => undefined, { connection, concurrency: 50 });
  while ((await queue.getJobCountByTypes('wait', 'active')) > 0) await new Promise((r) => setTimeout(r, 100));
  await worker.close();
  connection.disconnect();
  const finished = await used();
  await queue.obliterate({ force: true });
  await queue.close();
  return { queuedBytes: (queued - before) / n, finishedBytes: (finished - before) / n };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const missing = redisMissing();
  if (missing) throw new Error(missing);
  const source = join(args.data, 'ehri-typescripts-en', 'images');
  const pages = readdirSync(source).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort().slice(0, args.pages);
  if (pages.length === 0) throw new Error(`no page images in ${source} (--data)`);
  const root = mkdtempSync(join(tmpdir(), 'saccade-batch-bench-'));
  mkdirSync(join(root, 'scans'));
  for (const p of pages) copyFileSync(join(source, p), join(root, 'scans', p));
  const server = await RedisProcess.start();
  const redis = connect(server.url);
  try {
    const started = performance.now();
    const cli = spawnSync(process.execPath, [CLI, ...pages.map((p) => join(root, 'scans', p)), '-o', join(root, 'single')], { encoding: 'utf8' });
    if (cli.status !== 0) throw new Error(cli.stderr);
    const cliSeconds = (performance.now() - started) / 1000;
    const calls = await commandsRun(redis);
    const one = await throughWorkers(server.url, redis, root, 'one', [[]]);
    // The add command's and the workers' commands, without this benchmark's own (its polls, and INFO).
    const callsPerPage = (await commandsRun(redis) - calls - one.polls - 1) / pages.length;
    const two = await throughWorkers(server.url, redis, root, 'two', [['--threads', '1'], ['--threads', '1']]);
    const work = workSeconds(one.logs[0]!);
    const overheadMs = (1000 * (one.seconds - work.load - work.read)) / pages.length;
    const memory = await memoryPerJob(server.url, redis, args.memoryJobs);
    const result = {
      pages: pages.length,
      ocr_pages_per_s: pages.length / cliSeconds,
      one_worker_pages_per_s: pages.length / one.seconds,
      two_workers_pages_per_s: pages.length / two.seconds,
      one_worker_vs_ocr: cliSeconds / one.seconds,
      decode_ms_per_page: (1000 * work.read) / pages.length,
      queue_overhead_ms_per_page: overheadMs,
      queue_overhead_share: overheadMs / ((1000 * work.read) / pages.length),
      redis_commands_per_page: callsPerPage,
      redis_bytes_per_queued_job: memory.queuedBytes,
      redis_bytes_per_finished_job: memory.finishedBytes,
      memory_jobs: args.memoryJobs,
    };
    console.log(`${pages.length} pages: npm run ocr ${result.ocr_pages_per_s.toFixed(3)} pages/s; one worker ${result.one_worker_pages_per_s.toFixed(3)} `
      + `(${(100 * result.one_worker_vs_ocr).toFixed(1)}% of npm run ocr's rate); two workers ${result.two_workers_pages_per_s.toFixed(3)}`);
    console.log(`queue overhead ${overheadMs.toFixed(0)} ms a page against ${result.decode_ms_per_page.toFixed(0)} ms of reading `
      + `(${(100 * result.queue_overhead_share).toFixed(2)}%); ${callsPerPage.toFixed(1)} Redis commands a page`);
    console.log(`Redis memory: ${memory.queuedBytes.toFixed(0)} bytes a queued job (up to ${PAGES_PER_JOB} pages), ${memory.finishedBytes.toFixed(0)} bytes a finished job, over ${args.memoryJobs} jobs`);
    if (args.json) writeFileSync(args.json, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    redis.disconnect();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(() => process.exit(0), (err) => {
    console.error(`error: ${(err as Error).message}`);
    process.exit(1);
  });
}
