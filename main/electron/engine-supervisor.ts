// The engine runs in a utility process so a native crash cannot take a window down. Each window gets its own
// message port straight to the engine (main is not on the token path). When the process dies, windows are
// told why and reconnected to a fresh process; a process that keeps dying is not restarted in a loop.
import { app, MessageChannelMain, utilityProcess, type BrowserWindow, type UtilityProcess } from 'electron';
import { join } from 'node:path';

const RESTART_WINDOW_MS = 30_000;
const MAX_RESTARTS = 3;

export class EngineSupervisor {
  private engine: UtilityProcess | null = null;
  private readonly windows = new Set<BrowserWindow>();
  private recentExits: number[] = [];

  /** Connects a freshly loaded page to the engine (again after a reload). */
  attach(win: BrowserWindow): void {
    if (!this.windows.has(win)) {
      this.windows.add(win);
      win.on('closed', () => this.windows.delete(win));
    }
    this.connect(win);
  }

  stop(): void {
    const engine = this.engine;
    this.engine = null;
    engine?.kill();
  }

  private connect(win: BrowserWindow): void {
    if (win.isDestroyed()) return;
    const { port1, port2 } = new MessageChannelMain();
    this.ensureEngine().postMessage({ kind: 'attach-port' }, [port1]);
    win.webContents.postMessage('engine-port', null, [port2]);
  }

  private ensureEngine(): UtilityProcess {
    if (this.engine) return this.engine;
    // The utility process has no app.getPath: main names the user-data file the recent model folders live in.
    const env = { ...process.env, SACCADE_RECENT_MODELS: join(app.getPath('userData'), 'recent-models.json') };
    const child = utilityProcess.fork(join(__dirname, 'engine-host.js'), [], { serviceName: 'Saccade engine', env });
    child.on('exit', (code) => {
      if (this.engine !== child) return;
      this.engine = null;
      const now = Date.now();
      this.recentExits = [...this.recentExits.filter((t) => now - t < RESTART_WINDOW_MS), now];
      const reason = `the engine process exited with code ${code}`;
      for (const w of this.windows) if (!w.isDestroyed()) w.webContents.send('engine-exited', { reason });
      if (this.recentExits.length > MAX_RESTARTS) return;
      for (const w of this.windows) this.connect(w);
    });
    this.engine = child;
    return child;
  }
}
