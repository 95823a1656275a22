// The browser transport: serves the renderer and bridges each WebSocket connection to an engine session of its
// own, so the same UI runs in a browser (used by `npm start` where Electron is absent). It answers only its own
// page on loopback, holding the printed launch token (main/node/server/loopback-guard.ts, docs/threat-model.md), and
// nothing a client sends may stop it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { checkRequest, MAX_SEARCHABLE_PDF_BYTES, MAX_UPLOAD_MESSAGE_BYTES, type ResponseMessage } from '../../common/protocol';
import { EngineClient, type EngineConnection, type EngineConnector } from './engine/engine-client';
import { LoopbackGuard, requestTarget } from './server/loopback-guard';
import { frameRefusal } from './server/request-frame';
import { refuse, serveFile } from './server/static-files';
import { UploadBudget } from './server/upload-budget';

export interface ServerLimits {
  /**
   * Per message: ws refuses a bigger frame from its header, before buffering it. Each request kind has a
   * budget of its own within it, checked before the message is parsed (request-frame.ts).
   */
  maxMessageBytes: number;
  /** Over every connection together, from arrival until the engine has answered (upload-budget.ts). */
  maxBytesInFlight: number;
  /** Requests waiting for the engine's answer, per connection and over all of them. */
  maxPendingPerConnection?: number;
  maxPendingTotal?: number;
  /** Replies and events sent to a connection and not yet taken by it. */
  maxQueuedReplyBytes?: number;
}

/** Two documents on their way at once (two tabs opening files), not more. */
const DEFAULT_LIMITS: ServerLimits = { maxMessageBytes: MAX_UPLOAD_MESSAGE_BYTES, maxBytesInFlight: 2 * MAX_UPLOAD_MESSAGE_BYTES };
/** The app asks a few things at a time; a page asking faster than the engine answers is not the app. */
const DEFAULT_MAX_PENDING_PER_CONNECTION = 16;
const DEFAULT_MAX_PENDING_TOTAL = 64;
/**
 * Replies carry a sample page or a vocabulary, far under 16 MiB, and at most one searchable PDF export (the
 * engine makes one at a time, and refuses one larger than MAX_SEARCHABLE_PDF_BYTES), in base64.
 */
const DEFAULT_MAX_QUEUED_REPLY_BYTES = 16 * 1024 * 1024 + 4 * Math.ceil(MAX_SEARCHABLE_PDF_BYTES / 3);

/** What every connection's requests count against together. */
interface SharedCounts {
  pending: number;
}

export interface ServerOptions {
  port: number;
  /** A loopback address: the server is for the browser on this machine only. */
  host?: '127.0.0.1' | '::1';
  /** The built renderer (out/renderer). */
  rendererRoot?: string;
  engine?: EngineConnector;
  limits?: ServerLimits;
}

export interface RunningServer {
  server: Server;
  /** The address to open, with the launch token the page passes on to its socket. */
  url: string;
  token: string;
}

/** ws hands a text message over as one Buffer; the other forms are copied into one. */
const asBuffer = (data: RawData) => (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data));

function rejectUpgrade(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * The engine's answer to one message, or the reason the message is not a request. A message out of its kind's
 * budget is refused from its raw bytes: it is never parsed, nor sent on to the engine.
 */
async function answer(connection: EngineConnection, data: Buffer): Promise<ResponseMessage> {
  const refusal = frameRefusal(data);
  if (refusal) return { kind: 'response', id: requestId(data), ok: false, error: `rejected: ${refusal}` };
  let parsed: unknown = null;
  try { parsed = JSON.parse(data.toString('utf8')); } catch { /* rejected below as not an object */ }
  const checked = checkRequest(parsed);
  if (checked.ok) return connection.request(checked.value);
  const id = typeof (parsed as { id?: unknown })?.id === 'number' ? (parsed as { id: number }).id : -1;
  return { kind: 'response', id, ok: false, error: `rejected: ${checked.reason}` };
}

/** The id a message gives itself, for an answer when nothing else of it can be used; -1 when it has none. */
function requestId(data: Buffer): number {
  const m = /"id"\s*:\s*(\d{1,15})/.exec(data.toString('utf8', 0, 4096));
  return m ? Number(m[1]) : -1;
}

/**
 * One WebSocket connection: its requests go to its engine session, its answers and events come back. What it
 * may hold is bounded: requests waiting for an answer (per connection and over all), and what is queued for
 * it to read. A connection past a bound is cut off at once, so that it alone pays, not the others.
 */
function serveSocket(socket: WebSocket, stream: Duplex, engine: EngineConnector, budget: UploadBudget, limits: ServerLimits,
  shared: SharedCounts): void {
  const maxPending = limits.maxPendingPerConnection ?? DEFAULT_MAX_PENDING_PER_CONNECTION;
  const maxPendingTotal = limits.maxPendingTotal ?? DEFAULT_MAX_PENDING_TOTAL;
  const maxQueued = limits.maxQueuedReplyBytes ?? DEFAULT_MAX_QUEUED_REPLY_BYTES;
  const send = (message: unknown) => {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify(message));
    if (socket.bufferedAmount > maxQueued) socket.terminate();
  };
  let pending = 0;
  const connection = engine.connect(send);
  // Cut off at once: a graceful close would still buffer the rest of the message it is sending.
  const bytes = budget.watch(stream, () => socket.terminate());
  // ws reports a protocol error (an oversized or malformed frame) here and closes the connection itself;
  // without a listener the error would be thrown and stop the server.
  socket.on('error', (err) => console.error(`saccade: closed a WebSocket connection: ${err.message}`));
  socket.on('close', () => {
    bytes.stop();
    connection.close();
  });
  socket.on('message', (raw) => {
    // A connection cut off for the budget may still hand over the message that passed it: not for the engine.
    if (socket.readyState !== socket.OPEN) return;
    if (pending >= maxPending || shared.pending >= maxPendingTotal) {
      socket.terminate();
      return;
    }
    pending++;
    shared.pending++;
    const data = asBuffer(raw);
    const settle = bytes.messageArrived(data.length);
    // Every request gets an answer, an error one where answering failed.
    answer(connection, data)
      .catch((err: unknown): ResponseMessage => {
        const reason = err instanceof Error ? err.message : String(err);
        console.error(`saccade: could not answer a request: ${reason}`);
        return { kind: 'response', id: requestId(data), ok: false, error: `failed: ${reason}` };
      })
      .then(send)
      .finally(() => {
        pending--;
        shared.pending--;
        settle();
      });
  });
}

export function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const root = options.rendererRoot ?? join(__dirname, '..', 'renderer');
  const engine = options.engine ?? new EngineClient();
  const limits = options.limits ?? DEFAULT_LIMITS;
  const budget = new UploadBudget(limits.maxBytesInFlight);
  const shared: SharedCounts = { pending: 0 };
  // Set once listening: the guard checks the port actually bound (a port of 0 picks a free one).
  let guard: LoopbackGuard | null = null;

  const server = createServer((req, res) => {
    try {
      const target = requestTarget(req);
      const ownHost = guard?.ownHost(req);
      if (!guard || !ownHost || !guard.originAllowed(req, ownHost)) return refuse(res, 403, 'forbidden');
      if (!target) return refuse(res, 400, 'malformed request target');
      serveFile(root, req, res, target, ownHost);
    } catch (err) {
      console.error(`saccade: a request failed: ${err instanceof Error ? err.message : String(err)}`);
      refuse(res, 500, 'internal error');
    }
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A client that resets mid-handshake must not become an uncaught error.
    socket.on('error', () => socket.destroy());
    const target = requestTarget(req);
    const ownHost = guard?.ownHost(req);
    if (!guard || !ownHost || !guard.originAllowed(req, ownHost) || !target || !guard.tokenMatches(target)) {
      return rejectUpgrade(socket, '403 Forbidden');
    }
    if (target.pathname !== '/ws') return rejectUpgrade(socket, '404 Not Found');
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, socket, engine, budget, limits, shared));
  });
  server.on('close', () => engine.close());

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : options.port;
      guard = new LoopbackGuard(port);
      const origin = host === '::1' ? `http://[::1]:${port}` : `http://${host}:${port}`;
      resolve({ server, url: `${origin}/?token=${guard.token}`, token: guard.token });
    });
  });
}

if (require.main === module) {
  const port = Number(process.env.SACCADE_PORT ?? 5417);
  startServer({ port }).then(
    ({ url }) => console.log(`Saccade is serving its UI at ${url}`),
    (err: unknown) => {
      console.error(`saccade: cannot serve on 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
