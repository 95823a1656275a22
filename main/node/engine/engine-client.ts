// Owns the engine process from the server side: starts it, carries each WebSocket connection to it as a
// session of its own, hands every connection only its own answers and events, and turns a crash into an event
// plus failed requests instead of a dead server. The next request starts a fresh process.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { EventMessage, HostCommand, HostReply, RequestMessage, ResponseMessage } from '../../../common/protocol';

/** One connection's way to the engine. */
export interface EngineConnection {
  /** Answered with the connection's own request id, whatever ids other connections use. */
  request(message: RequestMessage): Promise<ResponseMessage>;
  /** The connection is gone: its requests are answered as failed, its decode stops, its documents close. */
  close(): void;
}

export interface EngineConnector {
  connect(onEvents: (message: EventMessage) => void): EngineConnection;
  close(): void;
}

interface Pending {
  session: number;
  resolve(m: ResponseMessage): void;
}

export class EngineClient implements EngineConnector {
  private child: ChildProcess | null = null;
  private nextSession = 1;
  /** Ids on the IPC channel: the engine sees these, never a client's own. */
  private nextRequest = 1;
  private readonly sessions = new Map<number, (message: EventMessage) => void>();
  private readonly pending = new Map<number, Pending>();

  /** `hostModule`: the engine process's entry point (the built engine-host.js beside this file). */
  constructor(private readonly hostModule = join(__dirname, 'engine-host.js')) {}

  connect(onEvents: (message: EventMessage) => void): EngineConnection {
    const session = this.nextSession++;
    this.sessions.set(session, onEvents);
    return {
      request: (message) => this.request(session, message),
      close: () => {
        this.sessions.delete(session);
        this.failPending((p) => p.session === session, 'the connection closed');
        this.send({ kind: 'session_end', session });
      },
    };
  }

  close(): void {
    this.child?.kill();
    this.child = null;
  }

  private request(session: number, message: RequestMessage): Promise<ResponseMessage> {
    const child = this.ensureChild();
    const channelId = this.nextRequest++;
    return new Promise((resolve) => {
      this.pending.set(channelId, { session, resolve: (m) => resolve({ ...m, id: message.id }) });
      // If the process died between ensureChild and here, its exit handler answers the pending request.
      this.send({ kind: 'session_request', session, request: { ...message, id: channelId } }, child);
    });
  }

  private send(command: HostCommand, child = this.child): void {
    child?.send(command, (err) => { if (err) console.error(`saccade: could not reach the engine process: ${err.message}`); });
  }

  private failPending(which: (p: Pending) => boolean, reason: string): void {
    for (const [id, p] of this.pending) {
      if (!which(p)) continue;
      this.pending.delete(id);
      p.resolve({ kind: 'response', id, ok: false, error: reason });
    }
  }

  private ensureChild(): ChildProcess {
    if (this.child) return this.child;
    const child = fork(this.hostModule, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', ({ session, message }: HostReply) => {
      if (message.kind === 'events') {
        this.sessions.get(session)?.(message);
        return;
      }
      const p = this.pending.get(message.id);
      if (!p || p.session !== session) return;
      this.pending.delete(message.id);
      p.resolve(message);
    });
    child.on('error', (err) => console.error(`saccade: engine process error: ${err.message}`));
    child.on('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      const reason = signal ? `the engine process was killed by ${signal}` : `the engine process exited with code ${code}`;
      this.failPending(() => true, reason);
      // The one event every connection gets: the documents of all of them were in the process that died.
      for (const onEvents of this.sessions.values()) onEvents({ kind: 'events', docId: null, events: [{ type: 'engine_crashed', reason }] });
    });
    this.child = child;
    return child;
  }
}
