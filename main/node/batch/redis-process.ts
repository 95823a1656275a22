// A Redis of our own, for the batch tests and the batch benchmark: Debian's redis-server on a free loopback
// port, in a temporary folder, with append-only persistence fsynced on every write, so that a stop and a start
// keep every job. Stopped (and its folder removed) by `close`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REDIS_SERVER = process.env.SACCADE_REDIS_SERVER ?? '/usr/bin/redis-server';

export function redisMissing(): string | false {
  return existsSync(REDIS_SERVER) ? false : `redis-server not found at ${REDIS_SERVER} (Debian: apt-get install redis-server)`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export class RedisProcess {
  private process: ChildProcess | null = null;

  private constructor(readonly port: number, readonly dir: string) {}

  static async start(): Promise<RedisProcess> {
    const redis = new RedisProcess(await freePort(), mkdtempSync(join(tmpdir(), 'saccade-redis-')));
    await redis.resume();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again) on the same port and folder. */
  async resume(): Promise<void> {
    const child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes',
      '--appendfsync', 'always', '--save', '', '--daemonize', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.process = child;
    await new Promise<void>((resolve, reject) => {
      let said = '';
      child.stdout!.on('data', (d: Buffer) => {
        said += d.toString();
        if (said.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${said.slice(-500)}`)));
    });
  }

  /** Stops the server as an operator would (SIGTERM: it flushes its log and exits). */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    this.process = null;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
