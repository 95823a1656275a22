import { checkServerMessage, type EventBatch, type RequestMap, type RequestName, type ServerMessage } from '../../../common/protocol';
import type { Transport } from './transport';

export class WebSocketTransport implements Transport {
  readonly kind = 'websocket' as const;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Set<(batch: EventBatch) => void>();
  private readonly ready: Promise<WebSocket>;

  constructor(url: string) {
    const socket = new WebSocket(url);
    this.ready = new Promise((resolve, reject) => {
      socket.addEventListener('open', () => resolve(socket));
      // The address without its query: the launch token stays out of what the page shows.
      socket.addEventListener('error', () => reject(new Error(`cannot reach the engine at ${url.split('?')[0]}: open the address npm start printed, token included`)));
    });
    socket.addEventListener('message', (e) => {
      let parsed: unknown = null;
      try { parsed = JSON.parse(String(e.data)); } catch { /* reported below as malformed */ }
      const checked = checkServerMessage(parsed);
      if (!checked.ok) {
        console.error(`saccade: ignored a malformed message from the engine: ${checked.reason}`);
        return;
      }
      for (const reason of checked.dropped) console.error(`saccade: ignored a malformed event: ${reason}`);
      this.receive(checked.value);
    });
    socket.addEventListener('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('the connection to the engine closed'));
      this.pending.clear();
      const crashed: EventBatch = { docId: null, events: [{ type: 'engine_crashed', reason: 'the connection to the engine server closed' }] };
      for (const l of this.listeners) l(crashed);
    });
  }

  async request<N extends RequestName>(name: N, params: RequestMap[N][0]): Promise<RequestMap[N][1]> {
    const socket = await this.ready;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      socket.send(JSON.stringify({ kind: 'request', id, name, params }));
    });
  }

  onEvents(listener: (batch: EventBatch) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private receive(message: ServerMessage): void {
    if (message.kind === 'events') {
      for (const l of this.listeners) l({ docId: message.docId, events: message.events });
      return;
    }
    const p = this.pending.get(message.id);
    if (!p) return;
    this.pending.delete(message.id);
    if (message.ok) p.resolve(message.result);
    else p.reject(new Error(message.error ?? 'request failed'));
  }
}
