// Entry point of the engine process. Every connection is a session of its own (main/node/server/session-channel.ts):
// Electron main hands over one message port per window, and the browser server multiplexes its WebSocket
// connections over the Node IPC channel of this child process, each tagged with its session number.
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HostCommand, HostReply } from '../../common/protocol';
import { RecentModelFolders } from './models/recent-model-folders';
import * as pipeline from './pipeline';
import { SessionChannel } from './server/session-channel';
import { SharedEngine } from './engine/shared-engine';

interface PortLike {
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
  on(event: 'close', listener: () => void): void;
  postMessage(message: unknown): void;
  start(): void;
}

interface ParentPort {
  on(event: 'message', listener: (e: { data: unknown; ports: PortLike[] }) => void): void;
}

/**
 * Where the recent model folders live: Electron main names a file in its user-data folder; in browser mode
 * the server's engine keeps them under the user's config folder.
 */
function recentModelsFile(): string {
  const named = process.env.SACCADE_RECENT_MODELS;
  if (named) return named;
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'saccade', 'recent-models.json');
}

const engine = new SharedEngine(pipeline, new RecentModelFolders(recentModelsFile()));

const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
if (parentPort) {
  parentPort.on('message', (e) => {
    const port = e.ports[0];
    if (!port) return;
    const channel = new SessionChannel(engine, (m) => port.postMessage(m));
    port.on('message', (m) => void channel.receive(m.data));
    // A window that closes or reloads drops its port, and with it what its session held.
    port.on('close', () => channel.end());
    port.start();
  });
} else {
  const channels = new Map<number, SessionChannel>();
  // The server may go away mid-decode: stop sending then, and exit rather than decode for nobody.
  // A send racing the disconnect fails with EPIPE; the callback keeps that from becoming an uncaught error.
  const reply = (r: HostReply) => { if (process.connected) process.send?.(r, undefined, undefined, () => undefined); };
  process.on('message', (command: HostCommand) => {
    const { session } = command;
    if (command.kind === 'session_end') {
      channels.get(session)?.end();
      channels.delete(session);
      return;
    }
    let channel = channels.get(session);
    if (!channel) {
      channel = new SessionChannel(engine, (message) => reply({ session, message }));
      channels.set(session, channel);
    }
    void channel.receive(command.request);
  });
  process.on('disconnect', () => process.exit(0));
}
