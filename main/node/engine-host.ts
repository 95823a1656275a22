// Entry point of the engine process. Speaks the same message protocol over whichever channel it gets: message
// ports handed over by Electron main (one per window), or the Node IPC channel of a child process.
import { checkRequest, type ServerMessage } from '../../common/protocol';
import { EngineSession } from './engine-session';
import * as pipeline from './pipeline';

interface Channel {
  send(message: ServerMessage): void;
}

interface PortLike {
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
  start(): void;
}

interface ParentPort {
  on(event: 'message', listener: (e: { data: unknown; ports: PortLike[] }) => void): void;
}

const channels = new Set<Channel>();
const session = new EngineSession((events) => {
  for (const c of channels) c.send({ kind: 'events', events });
}, pipeline);

async function serve(channel: Channel, raw: unknown): Promise<void> {
  const checked = checkRequest(raw);
  if (!checked.ok) {
    const id = typeof (raw as { id?: unknown })?.id === 'number' ? (raw as { id: number }).id : -1;
    channel.send({ kind: 'response', id, ok: false, error: `rejected: ${checked.reason}` });
    return;
  }
  const { id } = checked.value;
  try {
    channel.send({ kind: 'response', id, ok: true, result: await session.handle(checked.value) });
  } catch (err) {
    channel.send({ kind: 'response', id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
}

const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
if (parentPort) {
  parentPort.on('message', (e) => {
    const port = e.ports[0];
    if (!port) return;
    const channel: Channel = { send: (m) => port.postMessage(m) };
    channels.add(channel);
    port.on('message', (m) => void serve(channel, m.data));
    port.start();
  });
} else {
  // The server may go away mid-decode: stop sending then, and exit rather than decode for nobody.
  // A send racing the disconnect fails with EPIPE; the callback keeps that from becoming an uncaught error.
  const channel: Channel = { send: (m) => { if (process.connected) process.send?.(m, undefined, undefined, () => undefined); } };
  channels.add(channel);
  process.on('message', (m) => void serve(channel, m));
  process.on('disconnect', () => process.exit(0));
}
