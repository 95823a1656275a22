// What the batch tests drive: a Redis of their own (redis-process.ts), a root folder in the temporary folder,
// `npm run batch` commands run as the operator runs them (batch.ts, in a process of its own), and workers
// started and stopped as processes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisProcess } from './redis-process';

const BATCH = join(__dirname, '..', 'batch.ts');
const PROJECT = join(__dirname, '..', '..', '..');

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningWorker {
  child: ChildProcess;
  log: () => string;
  exited: Promise<number | null>;
}

export async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const started = Date.now();
  while (!(await ready())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function batchId(addOutput: string): string {
  return /^batch ([0-9a-f]{16}):/.exec(addOutput)![1]!;
}

export class BatchHarness {
  private constructor(readonly redis: RedisProcess, readonly root: string) {}

  static async start(): Promise<BatchHarness> {
    return new BatchHarness(await RedisProcess.start(), mkdtempSync(join(tmpdir(), 'saccade-batch-')));
  }

  /** `npm run batch -- <args>` against this Redis; `env` is added to the test's own. */
  batch(args: string[], env: NodeJS.ProcessEnv = {}): Ran {
    return spawnSync(process.execPath, ['--import', 'tsx', BATCH, ...args, '--redis', this.redis.url],
      { cwd: PROJECT, encoding: 'utf8', env: { ...process.env, ...env } });
  }

  /** Adds documents (named under the root) to a batch writing to `out` (under the root). */
  add(inputs: string[], out: string, ...extra: string[]): Ran {
    return this.batch(['add', ...inputs.map((i) => join(this.root, i)), '-o', join(this.root, out), '--root', this.root, '--hocr', ...extra]);
  }

  startWorker(...extra: string[]): RunningWorker {
    const child = spawn(process.execPath, ['--import', 'tsx', BATCH, 'work', '--root', this.root, '--threads', '1', '--redis', this.redis.url, ...extra],
      { cwd: PROJECT, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (d: Buffer) => void (log += d.toString()));
    return { child, log: () => log, exited: new Promise((resolve) => child.once('exit', resolve)) };
  }

  /** `status --json` of a batch (exit status 1: a document failed). */
  status(id: string): Record<string, unknown> {
    const r = this.batch(['status', id, '--json']);
    if (r.status !== 0 && r.status !== 1) throw new Error(`status exited ${r.status}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  }

  /** Pages kept so far under an output folder. */
  pagesKept(out: string): number {
    const store = join(this.root, out, '.saccade-pages');
    return existsSync(store) ? readdirSync(store).reduce((n, d) => n + readdirSync(join(store, d)).filter((f) => /^\d+\.json$/.test(f)).length, 0) : 0;
  }

  async close(): Promise<void> {
    await this.redis.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}
