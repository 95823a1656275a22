// The one narrow API the renderer gets inside Electron: the Transport interface over the message port that
// main hands over, nothing else. Sandboxed preloads may only import 'electron'.
import { contextBridge, ipcRenderer } from 'electron';

type Listener = (events: unknown[]) => void;

let port: MessagePort | null = null;
let nextId = 1;
const queue: unknown[] = [];
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
const listeners = new Set<Listener>();

ipcRenderer.on('engine-port', (event) => {
  port = event.ports[0] ?? null;
  if (!port) return;
  port.onmessage = (e: MessageEvent) => {
    const m = e.data as { kind: string; id?: number; ok?: boolean; result?: unknown; error?: string; events?: unknown[] };
    if (m.kind === 'events') { for (const l of listeners) l(m.events ?? []); return; }
    const p = pending.get(m.id ?? -1);
    if (!p) return;
    pending.delete(m.id ?? -1);
    if (m.ok) p.resolve(m.result); else p.reject(new Error(m.error ?? 'request failed'));
  };
  port.start();
  for (const m of queue.splice(0)) port.postMessage(m);
});

ipcRenderer.on('engine-exited', () => {
  for (const p of pending.values()) p.reject(new Error('the engine process stopped'));
  pending.clear();
  for (const l of listeners) l([{ type: 'engine_crashed', reason: 'the engine process stopped' }]);
});

contextBridge.exposeInMainWorld('saccade', {
  kind: 'electron',
  request(name: string, params: unknown): Promise<unknown> {
    const id = nextId++;
    const message = { kind: 'request', id, name, params };
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      if (port) port.postMessage(message); else queue.push(message);
    });
  },
  onEvents(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
});
