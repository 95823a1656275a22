// A WebSocket client of the browser-mode server for tests: sends requests with ids of its choosing, collects
// every event batch it is sent, and never waits forever (a request that is not answered fails the test).
import WebSocket from 'ws';
import type { RequestMap, RequestName, ResponseMessage, ServerMessage } from '../../common/protocol';

const ANSWER_TIMEOUT_MS = 20_000;

/** What the server printed: its address and the per-launch token that lets a page open its socket. */
export interface ServedAddress {
  origin: string;
  port: number;
  token: string | null;
}

export function servedAddress(url: string): ServedAddress {
  const parsed = new URL(url);
  return { origin: parsed.origin, port: Number(parsed.port), token: parsed.searchParams.get('token') };
}

export interface SocketOptions {
  /** Sent as the Origin header; none by default, as a non-browser client sends. */
  origin?: string;
  /** Sent as the Host header instead of the address connected to. */
  host?: string;
  /** The token on the socket URL; the served one by default, null for none. */
  token?: string | null;
}

export class EngineSocket {
  readonly events: Extract<ServerMessage, { kind: 'events' }>[] = [];
  private readonly waiting = new Map<number, (m: ResponseMessage) => void>();
  private readonly eventWaiters: Array<() => void> = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const m = JSON.parse(String(data)) as ServerMessage;
      if (m.kind === 'events') {
        this.events.push(m);
        for (const wake of this.eventWaiters.splice(0)) wake();
        return;
      }
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
    });
  }

  /** Opens a socket; rejects with the HTTP status when the server refuses the upgrade. */
  static open(address: ServedAddress, options: SocketOptions = {}): Promise<EngineSocket> {
    const token = options.token === undefined ? address.token : options.token;
    const url = `ws://127.0.0.1:${address.port}/ws${token === null ? '' : `?token=${encodeURIComponent(token)}`}`;
    const headers: Record<string, string> = options.host ? { host: options.host } : {};
    const socket = new WebSocket(url, { headers, ...(options.origin ? { origin: options.origin } : {}) });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new EngineSocket(socket)));
      socket.once('unexpected-response', (_req, res) => {
        reject(new Error(`refused with HTTP ${res.statusCode}`));
        socket.terminate();
      });
      socket.once('error', reject);
    });
  }

  /** Sends a request under the given id and waits for the response carrying that id. */
  request<N extends RequestName>(name: N, params: RequestMap[N][0], id: number): Promise<ResponseMessage> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${name} #${id} within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
      this.waiting.set(id, (m) => { clearTimeout(timer); resolve(m); });
      this.socket.send(JSON.stringify({ kind: 'request', id, name, params }));
    });
  }

  /** Resolves once at least one event batch has arrived. */
  async firstEvents(timeoutMs = ANSWER_TIMEOUT_MS): Promise<void> {
    if (this.events.length > 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no events within ${timeoutMs} ms`)), timeoutMs);
      this.eventWaiters.push(() => { clearTimeout(timer); resolve(); });
    });
  }

  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
