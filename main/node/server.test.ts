// The browser server in process, with a stand-in engine whose answers the test releases: what reaches which
// connection, and how much upload memory the connections together may hold.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import WebSocket from 'ws';
import type { EventMessage, RequestMessage, ResponseMessage } from '../../common/protocol';
import { EngineSocket, servedAddress, type ServedAddress } from '../../test/support/engine-socket';
import type { EngineConnector } from './engine/engine-client';
import { startServer, type ServerLimits } from './server';

interface FakeConnection {
  onEvents(m: EventMessage): void;
  requests: RequestMessage[];
  /** Answers the connection's oldest unanswered request. */
  answer(): void;
  closed: boolean;
}

/** An engine that holds every request until the test answers it. */
function heldEngine() {
  const connections: FakeConnection[] = [];
  const engine: EngineConnector = {
    connect(onEvents) {
      const waiting: Array<{ id: number; resolve(m: ResponseMessage): void }> = [];
      const c: FakeConnection = {
        onEvents, requests: [], closed: false,
        answer: () => {
          const next = waiting.shift();
          next?.resolve({ kind: 'response', id: next.id, ok: true, result: {} });
        },
      };
      connections.push(c);
      return {
        request: (message) => new Promise((resolve) => { c.requests.push(message); waiting.push({ id: message.id, resolve }); }),
        close: () => { c.closed = true; },
      };
    },
    close: () => undefined,
  };
  return { engine, connections };
}

async function serve(t: TestContext, limits?: ServerLimits) {
  const root = mkdtempSync(join(tmpdir(), 'saccade-renderer-'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>Saccade</title>');
  const fake = heldEngine();
  const { server, url } = await startServer({ port: 0, rendererRoot: root, engine: fake.engine, ...(limits ? { limits } : {}) });
  // A test that fails with sockets still open must end too: close waits for every connection.
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => sockets.add(s));
  t.after(() => new Promise((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(resolve);
  }));
  return { address: servedAddress(url), ...fake };
}

async function until(condition: () => boolean, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within 10 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** An openDocument request whose JSON is about `size` bytes. */
const upload = (id: number, size: number) =>
  JSON.stringify({ kind: 'request', id, name: 'openDocument', params: { name: 'scan.png', bytes: 'A'.repeat(size) } });

/** A raw socket (the helper's requests wait for answers this engine holds back). */
function rawSocket(address: ServedAddress): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${address.port}/ws?token=${address.token}`);
  return new Promise((resolve, reject) => { ws.once('open', () => resolve(ws)); ws.once('error', reject); });
}

const closeCode = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

test('events reach only the connection whose engine session sent them', async (t) => {
  const { address, connections } = await serve(t);
  const user = await EngineSocket.open(address);
  const other = await EngineSocket.open(address);
  await until(() => connections.length === 2);
  connections[0]!.onEvents({ kind: 'events', docId: 'd1', events: [{ type: 'progress', docId: 'd1', regionsDone: 1, regionsTotal: 2, elapsedMs: 5, remainingMs: 5 }] });
  await user.firstEvents();
  assert.deepEqual(user.events.map((m) => m.docId), ['d1']);
  assert.deepEqual(other.events, []);
  await user.close();
  await until(() => connections[0]!.closed);
  assert.equal(connections[1]!.closed, false, 'closing one socket ends only its session');
  await other.close();
});

test('a malformed message is answered under its own id, and the connection stays usable', async (t) => {
  const { address, connections } = await serve(t);
  const ws = await rawSocket(address);
  const reply = new Promise<ResponseMessage>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)) as ResponseMessage)));
  ws.send(JSON.stringify({ kind: 'request', id: 7, name: 'format', params: {} }));
  assert.deepEqual(await reply, { kind: 'response', id: 7, ok: false, error: 'rejected: unknown request "format"' });
  ws.send('not json');
  ws.send(JSON.stringify({ kind: 'request', id: 8, name: 'listSamples', params: {} }));
  await until(() => connections[0]?.requests.length === 1);
  assert.equal(connections[0]!.requests[0]!.id, 8);
  ws.terminate();
});

test('a request nested 10,000 levels deep is answered with a refusal, and the connection stays usable', async (t) => {
  const { address, connections } = await serve(t);
  const ws = await rawSocket(address);
  const reply = new Promise<ResponseMessage>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)) as ResponseMessage)));
  ws.send(`{"kind":"request","id":9,"name":"hello","params":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`);
  assert.deepEqual(await reply, { kind: 'response', id: 9, ok: false, error: 'rejected: nested deeper than 16 levels' });
  ws.send(JSON.stringify({ kind: 'request', id: 10, name: 'listSamples', params: {} }));
  await until(() => connections[0]?.requests.length === 1);
  assert.equal(connections[0]!.requests[0]!.id, 10);
  ws.terminate();
});

/** The most memory this process has held so far, in MB (Linux reports it as VmHWM). */
const peakRssMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

test('a wide message is refused from its raw bytes, never parsed nor sent on, while another connection is served', async (t) => {
  const { address, connections } = await serve(t);
  const wide = await rawSocket(address);
  const other = await rawSocket(address);
  // 21 MB of empty arrays under a hello: parsed and checked, such a message took the server past 1 GB.
  const message = `{"kind":"request","id":5,"name":"hello","params":{"x":[${'[],'.repeat(7_000_000)}[]]}}`;
  const before = peakRssMb();
  let answer: ResponseMessage | null = null;
  wide.once('message', (d) => { answer = JSON.parse(String(d)) as ResponseMessage; });
  wide.send(message);
  other.send(JSON.stringify({ kind: 'request', id: 1, name: 'hello', params: {} }));
  await until(() => answer !== null || connections[0]!.requests.length > 0, 'an answer to the wide message');
  assert.deepEqual(connections[0]!.requests, [], 'the wide message never reached the engine');
  assert.deepEqual(answer, { kind: 'response', id: 5, ok: false, error: 'rejected: no request holds more than 4000000 values' });
  await until(() => connections[1]?.requests.length === 1, 'the other connection\'s hello');
  // What is left is the message's own bytes, on both ends of the socket, copied a few times.
  const grown = peakRssMb() - before;
  assert.ok(grown < 160, `the server and its client grew by ${grown.toFixed(0)} MB for a 21 MB message`);
  wide.terminate();
  other.terminate();
});

test('a message over the per-message cap closes that connection only', async (t) => {
  const { address, connections } = await serve(t, { maxMessageBytes: 64 * 1024, maxBytesInFlight: 1024 * 1024 });
  const big = await rawSocket(address);
  const small = await rawSocket(address);
  const closed = closeCode(big);
  big.send(upload(1, 65 * 1024));
  assert.equal(await closed, 1009);
  small.send(upload(1, 1024));
  await until(() => connections[1]?.requests.length === 1);
  small.terminate();
});

test('uploads in flight across connections are bounded until the engine has answered them', async (t) => {
  const MiB = 1024 * 1024;
  const { address, connections } = await serve(t, { maxMessageBytes: MiB, maxBytesInFlight: 1.5 * MiB });
  const first = await rawSocket(address);
  const second = await rawSocket(address);
  first.send(upload(1, 0.9 * MiB));
  await until(() => connections[0]?.requests.length === 1);
  // The first upload is still with the engine: a second one would pass the bound, so its connection is cut.
  const cut = closeCode(second);
  second.send(upload(1, 0.9 * MiB));
  assert.equal(await cut, 1006);
  assert.equal(connections[1]!.requests.length, 0);

  const answered = new Promise((resolve) => first.once('message', resolve));
  connections[0]!.answer();
  await answered;
  // Answered, the first upload no longer counts: the next one goes through.
  const third = await rawSocket(address);
  third.send(upload(1, 0.9 * MiB));
  await until(() => connections[2]?.requests.length === 1);
  first.terminate();
  third.terminate();
});

test('a message that completes in the chunk that passes the bound is not handed to the engine', async (t) => {
  const first = upload(1, 100 * 1024);
  // The held upload as the budget counts it (its frame: payload, a 64-bit length and the mask key), and room
  // for less than the small message that follows, which arrives in one chunk.
  const held = Buffer.byteLength(first) + 14;
  const { address, connections } = await serve(t, { maxMessageBytes: 1024 * 1024, maxBytesInFlight: held + 50 });
  const holder = await rawSocket(address);
  holder.send(first);
  await until(() => connections[0]?.requests.length === 1);
  const late = await rawSocket(address);
  const cut = closeCode(late);
  late.send(JSON.stringify({ kind: 'request', id: 1, name: 'listSamples', params: {} }));
  assert.equal(await cut, 1006);
  assert.equal(connections[1]!.requests.length, 0);
  holder.terminate();
});

test('a model folder path that is no path is refused by the server before the engine sees it', async (t) => {
  const { address, connections } = await serve(t);
  const ws = await rawSocket(address);
  const replies: ResponseMessage[] = [];
  ws.on('message', (d) => replies.push(JSON.parse(String(d)) as ResponseMessage));
  const bad = [42, '', '/models/a\0b', `/${'m'.repeat(5000)}`, ['/models/tiny']];
  bad.forEach((dir, i) => ws.send(JSON.stringify({ kind: 'request', id: i + 1, name: 'switchModel', params: { dir } })));
  await until(() => replies.length === bad.length, 'the refusals');
  for (const r of replies) {
    assert.equal(r.ok, false);
    assert.match(r.error!, /^rejected: switchModel\.dir must be null or a path/);
  }
  ws.send(JSON.stringify({ kind: 'request', id: 9, name: 'switchModel', params: { dir: '/models/tiny' } }));
  await until(() => connections[0]?.requests.length === 1, 'the well-formed switch');
  assert.deepEqual(connections[0]!.requests.map((r) => r.params), [{ dir: '/models/tiny' }]);
  ws.terminate();
});

const request = (id: number) => JSON.stringify({ kind: 'request', id, name: 'listSamples', params: {} });

test('a connection asking faster than the engine answers is cut off; the others are still answered', async (t) => {
  const limits = { maxMessageBytes: 64 * 1024, maxBytesInFlight: 1024 * 1024, maxPendingPerConnection: 4, maxPendingTotal: 6 };
  const { address, connections } = await serve(t, limits);
  const flood = await rawSocket(address);
  const closed = closeCode(flood);
  for (let id = 1; id <= 5; id++) flood.send(request(id));
  assert.equal(await closed, 1006, 'the fifth request waiting on the engine cuts its connection');
  assert.equal(connections[0]!.requests.length, 4);
  // Its requests count until the engine has answered them, as they load the engine until then.
  for (let i = 0; i < 4; i++) connections[0]!.answer();

  // Over all connections together: two connections of three waiting requests fill the total of six.
  const a = await rawSocket(address);
  const b = await rawSocket(address);
  for (let id = 1; id <= 3; id++) a.send(request(id));
  await until(() => connections[1]?.requests.length === 3);
  const bClosed = closeCode(b);
  for (let id = 1; id <= 4; id++) b.send(request(id));
  assert.equal(await bClosed, 1006);
  // Answers free the count again: a waits on nothing once answered, and a new connection is served.
  for (let i = 0; i < 3; i++) connections[1]!.answer();
  const c = await rawSocket(address);
  const reply = new Promise<ResponseMessage>((resolve) => c.once('message', (d) => resolve(JSON.parse(String(d)) as ResponseMessage)));
  c.send(request(42));
  await until(() => connections.at(-1)!.requests.length === 1);
  connections.at(-1)!.answer();
  assert.equal((await reply).id, 42);
  a.terminate();
  c.terminate();
});

test('a connection that does not read what it is sent is cut off past its queue bound', async (t) => {
  const { address, connections } = await serve(t, { maxMessageBytes: 64 * 1024, maxBytesInFlight: 1024 * 1024, maxQueuedReplyBytes: 64 * 1024 });
  const user = await rawSocket(address);
  const closed = closeCode(user);
  // Stop reading: what the server sends piles up in its buffer for this socket.
  (user as unknown as { _socket: Socket })._socket.pause();
  await until(() => connections.length === 1);
  const batch = { kind: 'events' as const, docId: 'd', events: [{ type: 'engine_crashed' as const, reason: 'x'.repeat(32 * 1024) }] };
  for (let i = 0; i < 200; i++) connections[0]!.onEvents(batch);
  (user as unknown as { _socket: Socket })._socket.resume();
  assert.equal(await closed, 1006);
});
