// Starts the real built server (`npm start`'s browser fallback) on a free port and returns the URL it prints.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface RunningApp {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function startApp(env: Record<string, string> = {}): Promise<RunningApp> {
  const root = join(__dirname, '..', '..');
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, SACCADE_BROWSER: '1', SACCADE_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL printed by npm start; output: ${out}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // The printed address carries the launch token the page needs to reach the engine.
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)\s/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: m[1]!,
        process: child,
        stop: () => new Promise((done) => { child.once('exit', () => done()); child.kill('SIGTERM'); }),
      });
    });
    child.on('exit', (code) => reject(new Error(`npm start exited (${code}) before printing a URL: ${out}`)));
  });
}
