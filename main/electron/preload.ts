// The one narrow API the renderer gets inside Electron: the Transport over the message port main hands
// over (validated like every other message), and the shell functions of HostShell. Nothing else: no
// ipcRenderer, no Node. Sandboxed preloads may only import 'electron'; the protocol checks are bundled in.
import { contextBridge, ipcRenderer } from 'electron';
import { checkServerMessage, REQUEST_NAMES, type EventBatch, type RequestName } from '../../common/protocol';
import { SHELL_COMMANDS } from '../../common/shell-commands';

type Listener = (batch: EventBatch) => void;
const MENU_COMMANDS = new Set<string>(SHELL_COMMANDS);

let port: MessagePort | null = null;
let nextId = 1;
const queue: unknown[] = [];
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
const listeners = new Set<Listener>();
const commandListeners = new Set<(command: string) => void>();
const fileListeners = new Set<(file: { name: string; bytes: Uint8Array }) => void>();

function failPending(reason: string): void {
  for (const p of pending.values()) p.reject(new Error(reason));
  pending.clear();
}

ipcRenderer.on('engine-port', (event) => {
  port?.close();
  port = event.ports[0] ?? null;
  if (!port) return;
  port.onmessage = (e: MessageEvent) => {
    const checked = checkServerMessage(e.data);
    if (!checked.ok) {
      console.error(`saccade: ignored a malformed message from the engine: ${checked.reason}`);
      return;
    }
    const m = checked.value;
    if (m.kind === 'events') {
      // The port reaches this window's own engine session: its batches name documents of this window only.
      for (const l of listeners) l({ docId: m.docId, events: m.events });
      return;
    }
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.result); else p.reject(new Error(m.error ?? 'request failed'));
  };
  port.start();
  for (const m of queue.splice(0)) port.postMessage(m);
});

ipcRenderer.on('engine-exited', (_event, payload: unknown) => {
  const reason = typeof (payload as { reason?: unknown })?.reason === 'string' ? (payload as { reason: string }).reason : 'the engine process stopped';
  port = null;
  failPending(reason);
  for (const l of listeners) l({ docId: null, events: [{ type: 'engine_crashed', reason }] });
});

ipcRenderer.on('menu-command', (_event, command: unknown) => {
  if (typeof command === 'string' && MENU_COMMANDS.has(command)) for (const l of commandListeners) l(command);
});

ipcRenderer.on('open-file', (_event, file: unknown) => {
  const f = file as { name?: unknown; bytes?: unknown };
  if (typeof f?.name !== 'string' || !(f.bytes instanceof Uint8Array)) return;
  for (const l of fileListeners) l({ name: f.name, bytes: f.bytes });
});

contextBridge.exposeInMainWorld('saccade', {
  kind: 'electron',
  request(name: string, params: unknown): Promise<unknown> {
    if (!(REQUEST_NAMES as readonly string[]).includes(name)) return Promise.reject(new Error(`unknown request ${name}`));
    const id = nextId++;
    const message = { kind: 'request', id, name: name as RequestName, params };
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      if (port) port.postMessage(message); else queue.push(message);
    });
  },
  onEvents(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  shell: {
    saveMarkdown: (suggestedName: string, text: string): Promise<boolean> =>
      ipcRenderer.invoke('save-markdown', { suggestedName: String(suggestedName), text: String(text) }) as Promise<boolean>,
    savePdf: (suggestedName: string, bytes: Uint8Array): Promise<boolean> =>
      ipcRenderer.invoke('save-pdf', { suggestedName: String(suggestedName), bytes: bytes instanceof Uint8Array ? bytes : new Uint8Array() }) as Promise<boolean>,
    showOpenDialog: (): void => ipcRenderer.send('show-open-dialog', null),
    chooseModelFolder: async (): Promise<string | null> => {
      const dir: unknown = await ipcRenderer.invoke('choose-model-folder', null);
      return typeof dir === 'string' ? dir : null;
    },
    onCommand(listener: (command: string) => void): () => void {
      commandListeners.add(listener);
      return () => commandListeners.delete(listener);
    },
    onOpenFile(listener: (file: { name: string; bytes: Uint8Array }) => void): () => void {
      fileListeners.add(listener);
      return () => fileListeners.delete(listener);
    },
    documentChanged: (name: string | null): void => ipcRenderer.send('document-changed', { name: name === null ? null : String(name) }),
    engineReady: (summary: string): void => ipcRenderer.send('engine-summary', { summary: String(summary) }),
  },
});
