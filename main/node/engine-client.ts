// Owns the engine process from the server side: starts it, forwards requests, and turns a crash into an
// event plus rejected requests instead of a dead server. The next request starts a fresh process.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { RequestMessage, ServerMessage, SessionEvent } from '../../common/protocol';

type Pending = { resolve: (m: ServerMessage & { kind: 'response' }) => void };

export class EngineClient {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly onEvents: (events: SessionEvent[]) => void) {}

  request(message: RequestMessage): Promise<ServerMessage & { kind: 'response' }> {
    const child = this.ensureChild();
    return new Promise((resolve) => {
      this.pending.set(message.id, { resolve });
      // If the process died between ensureChild and here, its exit handler answers the pending request.
      child.send(message, (err) => { if (err) console.error(`saccade: could not reach the engine process: ${err.message}`); });
    });
  }

  close(): void {
    this.child?.kill();
    this.child = null;
  }

  private ensureChild(): ChildProcess {
    if (this.child) return this.child;
    const child = fork(join(__dirname, 'engine-host.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', (m: ServerMessage) => {
      if (m.kind === 'events') {
        this.onEvents(m.events);
        return;
      }
      this.pending.get(m.id)?.resolve(m);
      this.pending.delete(m.id);
    });
    child.on('error', (err) => console.error(`saccade: engine process error: ${err.message}`));
    child.on('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      const reason = signal ? `the engine process was killed by ${signal}` : `the engine process exited with code ${code}`;
      for (const [id, p] of this.pending) p.resolve({ kind: 'response', id, ok: false, error: reason });
      this.pending.clear();
      this.onEvents([{ type: 'engine_crashed', reason }]);
    });
    this.child = child;
    return child;
  }
}
