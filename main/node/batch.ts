// `npm run batch -- add|work|status|list|clear ...`: large archives read by any number of machines that share the
// documents' storage, through a BullMQ queue on Redis (README "Large archives", docs/decisions/0031).
//   add <files or folders...> -o <folder> [--root DIR] [--json] [--hocr] [decode options of npm run ocr]
//   work [--root DIR] [--model DIR]... [--threads N] [--lock-seconds S]
//   status [BATCH] [--follow] [--json]   (exit status 1 when a document failed, as npm run ocr's)
//   list [--json]
//   clear BATCH
// Each takes --redis URL (else $SACCADE_REDIS_URL, else redis://127.0.0.1:6379). Documents and outputs are named
// relative to the root (the folder the command was typed in unless --root), which may be mounted at another
// path on each machine.
import type { Redis } from 'ioredis';
import { maxThreads } from './engine/native-addon';
import { wholeNumber } from './inputs/number-options';
import { addBatch } from './batch/batch-add';
import { clearBatch } from './batch/batch-clear';
import { jobsInHand } from './batch/batch-reading';
import { connect, LOCK_MS, openQueue } from './batch/batch-queue';
import { batchIds, batchStatus, latestBatch, RATE_PAGES } from './batch/batch-state';
import { finished, listLine, secondsLeft, statusText } from './batch/batch-status';
import { BatchWorker } from './batch/batch-worker';
import { redisUrl } from './batch/redis-url';
import { ProgressBar } from './cli/progress-bar';
import { terminalJson, terminalText } from './cli/terminal-text';
import { userPath } from './cli/user-folder';

const USAGE = `usage: npm run batch -- add <files or folders...> -o <folder> [--root DIR] [--json] [--hocr] [decode options of npm run ocr]
       npm run batch -- work [--root DIR] [--model DIR]... [--threads N] [--lock-seconds S]
       npm run batch -- status [BATCH] [--follow] [--json]     the batch added last unless BATCH; exit status 1 when a document failed
       npm run batch -- list [--json]                          every batch, the one added last first
       npm run batch -- clear BATCH                            its jobs and counts leave Redis; outputs and kept pages stay
  each with [--redis URL] (else $SACCADE_REDIS_URL, else ${'redis://127.0.0.1:6379'}; a Redis off this machine needs a password)
  status: pages done of all, documents written, pages/s over the last ${RATE_PAGES} pages read and the time left at that
  rate, each page being read with its worker ("retrying" once its worker's lock has run out), workers alive, failures`;

/** Flags of `npm run ocr` that take a value (the rest are switches); batch-job.ts checks which are allowed. */
const VALUED_DECODE_FLAGS = new Set(['--mode', '--keep-ratio', '--tables', '--views', '--max-tokens', '--batch', '--model']);

const COMMANDS = ['add', 'work', 'status', 'list', 'clear'] as const;

interface Parsed {
  command: (typeof COMMANDS)[number];
  positional: string[];
  values: Map<string, string[]>;
  switches: Set<string>;
  decodeFlags: string[];
}

function parse(argv: string[]): Parsed {
  const command = COMMANDS.find((c) => c === argv[0]);
  if (!command) throw new Error(USAGE);
  const own: Record<Parsed['command'], { values: string[]; switches: string[] }> = {
    add: { values: ['-o', '--out', '--root', '--redis'], switches: ['--json', '--hocr'] },
    work: { values: ['--root', '--redis', '--model', '--threads', '--lock-seconds'], switches: [] },
    status: { values: ['--redis'], switches: ['--follow', '--json'] },
    list: { values: ['--redis'], switches: ['--json'] },
    clear: { values: ['--redis'], switches: [] },
  };
  const parsed: Parsed = { command, positional: [], values: new Map(), switches: new Set(), decodeFlags: [] };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (own[command].values.includes(a)) {
      const key = a === '--out' ? '-o' : a;
      parsed.values.set(key, [...(parsed.values.get(key) ?? []), value()]);
    } else if (own[command].switches.includes(a)) parsed.switches.add(a);
    else if (command === 'add' && a.startsWith('--') && a !== '--') parsed.decodeFlags.push(a, ...(VALUED_DECODE_FLAGS.has(a) ? [value()] : []));
    else if (a === '--') {
      parsed.positional.push(...argv.slice(i + 1));
      break;
    } else if (a.startsWith('-')) throw new Error(`unknown option ${a} for ${command}\n${USAGE}`);
    else parsed.positional.push(a);
  }
  return parsed;
}

const one = (p: Parsed, key: string): string | undefined => p.values.get(key)?.at(-1);

async function add(redis: Redis, p: Parsed): Promise<number> {
  const out = one(p, '-o');
  if (!out || p.positional.length === 0) throw new Error(USAGE);
  const queue = openQueue(redis);
  try {
    const r = await addBatch(redis, queue, {
      root: userPath(one(p, '--root') ?? '.'), inputs: p.positional.map((i) => userPath(i)), out: userPath(out), flags: p.decodeFlags,
      outputs: { json: p.switches.has('--json'), hocr: p.switches.has('--hocr') },
    });
    console.log(`batch ${r.batch}: ${r.documents} document(s)${r.failed.length ? ` (${r.failed.length} not added)` : ''}, ${r.pages} page(s) (${r.pagesDone} read already), ${r.jobs} job(s) queued`);
    for (const f of r.failed) console.error(terminalText(`not added: ${f.doc}: ${f.reason}`));
    return 0;
  } finally {
    await queue.close();
  }
}

async function status(redis: Redis, p: Parsed): Promise<number> {
  const id = p.positional[0] ?? await latestBatch(redis);
  if (!id) throw new Error('no batch has been added to this Redis');
  const queue = openQueue(redis);
  try {
    const bar = new ProgressBar(process.stderr, 'pages');
    for (;;) {
      const s = await batchStatus(redis, id);
      if (!s) throw new Error(`no batch ${id} in this Redis`);
      const [workers, inHand] = await Promise.all([queue.getWorkersCount(), jobsInHand(redis, id)]);
      if (!p.switches.has('--follow') || finished(s)) {
        if (p.switches.has('--follow')) bar.done();
        const left = secondsLeft(s);
        console.log(p.switches.has('--json') ? terminalJson({ ...s, secondsLeft: finished(s) ? 0 : left, workers, inHand, finished: finished(s) }) : statusText(s, workers, inHand));
        return s.failed.length > 0 ? 1 : 0;
      }
      bar.start(`batch ${id} (${workers} worker(s))`);
      const left = secondsLeft(s);
      bar.update(s.donePages, s.pages, left === null ? null : left * 1000);
      await new Promise((r) => setTimeout(r, 2000));
    }
  } finally {
    await queue.close();
  }
}

async function list(redis: Redis, p: Parsed): Promise<number> {
  const ids = await batchIds(redis);
  const all = (await Promise.all(ids.map((id) => batchStatus(redis, id)))).filter((s) => s !== null);
  if (p.switches.has('--json')) console.log(terminalJson(all.map((s) => ({ ...s, finished: finished(s) }))));
  else if (all.length === 0) console.log('no batch has been added to this Redis');
  else for (const s of all) console.log(listLine(s));
  return 0;
}

async function clear(redis: Redis, p: Parsed): Promise<number> {
  const id = p.positional[0];
  if (!id || p.positional.length > 1) throw new Error(`clear takes one batch id (npm run batch -- list shows them)\n${USAGE}`);
  if (!(await batchStatus(redis, id))) throw new Error(`no batch ${id} in this Redis`);
  const queue = openQueue(redis);
  try {
    const r = await clearBatch(redis, queue, id);
    console.log(`batch ${id} cleared: ${r.removed} job(s) removed${r.busy ? `, ${r.busy} being read left to finish` : ''}; its outputs and kept pages stay on the storage`);
    return 0;
  } finally {
    await queue.close();
  }
}

async function work(redis: Redis, p: Parsed): Promise<number> {
  const threads = one(p, '--threads');
  const lock = one(p, '--lock-seconds');
  const root = userPath(one(p, '--root') ?? '.');
  const worker = new BatchWorker(redis, {
    root,
    models: (p.values.get('--model') ?? []),
    threads: threads === undefined ? undefined : wholeNumber('--threads', threads, 1, maxThreads()),
    lockMs: lock === undefined ? LOCK_MS : 1000 * wholeNumber('--lock-seconds', lock, 2, 3600),
    log: (line) => console.error(terminalText(line)),
  });
  worker.start();
  console.error(terminalText(`worker ready: pid ${process.pid}, root ${root}`));
  await new Promise<void>((done) => {
    const stop = () => {
      console.error(worker.reading ? 'stopping after the page being read...' : 'stopping (no page being read)');
      void worker.stop().then(done);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  return 0;
}

async function main(): Promise<number> {
  let p: Parsed;
  let url: string;
  try {
    p = parse(process.argv.slice(2));
    url = redisUrl(one(p, '--redis'));
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const redis = connect(url, p.command === 'work');
  let lastError = '';
  redis.on('error', (err: Error) => void (lastError = err.message));
  try {
    if (p.command !== 'work') {
      await redis.ping().catch(() => {
        throw new Error(`cannot reach Redis at ${new URL(url).host}${lastError ? ` (${lastError})` : ''}`);
      });
    }
    return await { add, work, status, list, clear }[p.command](redis, p);
  } finally {
    redis.disconnect();
  }
}

if (require.main === module) {
  main().then((code) => process.exit(code), (err) => {
    console.error(terminalText(`error: ${(err as Error).message.split('\n')[0]}`));
    // 2, as for a bad option: 1 says that documents failed (status).
    process.exit(2);
  });
}
