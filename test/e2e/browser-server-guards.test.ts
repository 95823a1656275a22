// The browser-mode server as `npm start` serves it, probed from outside (docs/threat-model.md): it answers only
// its own loopback origin and the page that holds its launch token, nothing a client sends stops it, its page
// cannot be framed, and every connection is a session of its own: a second connection sees none of the first
// one's events and cannot act on its documents. Traffic goes to 127.0.0.1 only; other names are mapped there.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import WebSocket from 'ws';
import { DEFAULT_DECODE_OPTIONS } from '../../common/engine-types';
import { MAX_EXPORT_TEXT_CHARS, MAX_EXPORT_WORD_CHARS, type DocumentInfo, type ResponseMessage } from '../../common/protocol';
import { startApp, type RunningApp } from '../support/app-server';
import { launchChromium } from '../support/browser';
import { EngineSocket, servedAddress, type ServedAddress } from '../support/engine-socket';

const ROOT = join(__dirname, '..', '..');
const engineMissing = ['native/build/Release/saccade.node', 'assets/models/saccade-ocr-tiny/config.json']
  .filter((p) => !existsSync(join(ROOT, p)));
const noEngine = engineMissing.length ? `the real engine is not available here (missing ${engineMissing.join(', ')})` : false;
/** A name a rebinding attacker's DNS points at the loopback address; Chromium resolves it there. */
const REBOUND_NAME = 'rebind.test';

let app: RunningApp;
let address: ServedAddress;
let browser: Browser;
let attacker: Server;
let attackerOrigin: string;

before(async () => {
  app = await startApp();
  address = servedAddress(app.url);
  browser = await launchChromium([`--host-resolver-rules=MAP ${REBOUND_NAME} 127.0.0.1`]);
  // Another site in the user's browser: a page that opens the app's socket with the token it somehow learnt.
  attacker = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<script>
      const ws = new WebSocket('ws://127.0.0.1:${address.port}/ws?token=${address.token ?? ''}');
      ws.onopen = () => { document.title = 'open'; };
      ws.onclose = () => { if (document.title !== 'open') document.title = 'refused'; };
    </script>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  const port = (attacker.address() as { port: number }).port;
  attackerOrigin = `http://127.0.0.1:${port}`;
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await app?.stop();
});

/** One plain HTTP GET to the server on loopback, with the headers given (Host included). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: address.port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const own = () => `127.0.0.1:${address.port}`;

test('npm start prints a loopback URL with a per-launch token', () => {
  assert.match(app.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32,}$/);
});

test('HTTP is answered only under the server\'s own loopback names and origin', async () => {
  for (const host of [own(), `localhost:${address.port}`]) assert.equal((await get('/', { host })).status, 200, host);
  assert.equal((await get('/', { host: `${REBOUND_NAME}:${address.port}` })).status, 403, 'a rebound name is refused');
  assert.equal((await get('/', { host: '127.0.0.1:1' })).status, 403, 'another port is not this server');
  assert.equal((await get('/', { host: own(), origin: attackerOrigin })).status, 403, 'a request from another origin is refused');
  assert.equal((await get('/', { host: own(), origin: `http://${own()}` })).status, 200);
});

test('the WebSocket opens only with the token, under its own host and origin', async () => {
  await assert.rejects(EngineSocket.open(address, { token: null }), /HTTP 403/);
  await assert.rejects(EngineSocket.open(address, { token: randomBytes(32).toString('base64url') }), /HTTP 403/);
  await assert.rejects(EngineSocket.open(address, { origin: attackerOrigin }), /HTTP 403/, 'the token from another origin');
  await assert.rejects(EngineSocket.open(address, { origin: 'null' }), /HTTP 403/);
  await assert.rejects(EngineSocket.open(address, { host: `${REBOUND_NAME}:${address.port}` }), /HTTP 403/);
  const socket = await EngineSocket.open(address, { origin: `http://${own()}` });
  assert.equal((await socket.request('listSamples', {}, 1)).ok, true);
  await socket.close();
});

test('in Chromium, a page of another origin cannot open the socket, even with the token', async () => {
  const page = await browser.newPage();
  await page.goto(attackerOrigin);
  await page.waitForFunction(() => document.title !== '', null, { timeout: 10_000 });
  assert.equal(await page.title(), 'refused');
  await page.close();
});

test('in Chromium, a rebound name pointing at the server gets nothing', async () => {
  const page = await browser.newPage();
  const response = await page.goto(`http://${REBOUND_NAME}:${address.port}/?token=${address.token ?? ''}`);
  assert.equal(response?.status(), 403);
  assert.equal(await page.locator('#root').count(), 0, 'the app page is not served');
  await page.close();
});

test('the page forbids framing and connects only to its own server', async () => {
  const { headers } = await get('/', { host: own() });
  const csp = String(headers['content-security-policy']);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, new RegExp(`connect-src 'self' ws://127\\.0\\.0\\.1:${address.port}(;|$)`));
  assert.doesNotMatch(csp, /connect-src[^;]*\bwss?:(\s|;|$)/, 'no bare ws: or wss: scheme');
  assert.equal(headers['x-frame-options'], 'DENY');
  assert.equal(headers['x-content-type-options'], 'nosniff');
  const viaLocalhost = String((await get('/', { host: `localhost:${address.port}` })).headers['content-security-policy']);
  assert.match(viaLocalhost, new RegExp(`connect-src 'self' ws://localhost:${address.port}(;|$)`));
});

test('malformed paths are answered with 400 and the server keeps serving', async () => {
  for (const path of ['/%', '/%E0%A4%A', '/assets/%zz.js', 'http://[']) assert.equal((await get(path, { host: own() })).status, 400, path);
  assert.equal((await get('/', { host: own() })).status, 200);
});

/**
 * Opens a raw upgraded socket and sends the header of one frame (`first`: FIN and opcode) declaring `length`
 * bytes; resolves with the close code the server sends back, or null when it keeps waiting for the payload.
 */
function declareFrame(length: number, first = 0x81): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(address.port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let upgraded = false;
    const timer = setTimeout(() => { socket.destroy(); resolve(null); }, 5_000);
    socket.on('error', reject);
    socket.on('connect', () => socket.write([
      `GET /ws?token=${address.token ?? ''} HTTP/1.1`, `Host: ${own()}`, 'Upgrade: websocket', 'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, 'Sec-WebSocket-Version: 13', '', ''].join('\r\n')));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!upgraded) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        assert.match(received.subarray(0, end).toString(), /^HTTP\/1\.1 101/);
        upgraded = true;
        received = received.subarray(end + 4);
        const header = Buffer.alloc(14);
        header[0] = first;
        header[1] = 0x80 | 127; // masked, 64-bit length
        header.writeBigUInt64BE(BigInt(length), 2);
        socket.write(header); // the mask key is the last 4 bytes (zeros)
      }
      // The server's close frame: 0x88, the payload length, then the status code.
      if (received.length >= 4 && received[0] === 0x88) {
        clearTimeout(timer);
        socket.destroy();
        resolve(received.readUInt16BE(2));
      }
    });
  });
}

test('a frame larger than the largest document upload is refused before its payload arrives', async () => {
  assert.equal(await declareFrame(300 * 2 ** 20), 1009);
  assert.equal(await declareFrame(600 * 2 ** 20), 1009);
  assert.equal((await get('/', { host: own() })).status, 200, 'the server still serves');
});

test('a frame that breaks the WebSocket protocol closes its connection, not the server', async () => {
  assert.equal(await declareFrame(4, 0x83), 1002, 'a reserved opcode');
  assert.equal((await get('/', { host: own() })).status, 200);
});

test('two connections are two sessions: same request ids, separate events and documents', { skip: noEngine }, async () => {
  const user = await EngineSocket.open(address);
  const other = await EngineSocket.open(address);
  // Both pick id 1, as every fresh page does: each gets its own answer.
  const [userHello, otherHello] = await Promise.all([user.request('hello', {}, 1), other.request('hello', {}, 1)]);
  assert.equal(userHello.ok, true);
  assert.equal(otherHello.ok, true);

  const opened = await user.request('openSample', { name: 'scanned-page.png' }, 2);
  assert.equal(opened.ok, true, opened.error);
  const { docId } = (opened.result as { doc: DocumentInfo }).doc;
  const decoding = user.request('decode', { docId, pages: null, options: DEFAULT_DECODE_OPTIONS }, 3);
  await user.firstEvents(60_000);
  assert.ok(user.events.every((m) => m.docId === docId), 'every batch names the document it belongs to');

  assert.deepEqual((await other.request('cancel', {}, 2)).result, { cancelled: false }, 'a cancel stops only its own decode');
  assert.deepEqual((await other.request('closeDocument', { docId }, 3)).result, { closed: false }, 'another session\'s document cannot be closed');
  assert.deepEqual((await user.request('cancel', {}, 4)).result, { cancelled: true });
  assert.equal((await decoding).ok, true);
  const foreignDecode = await other.request('decode', { docId, pages: null, options: DEFAULT_DECODE_OPTIONS }, 4);
  assert.match(String(foreignDecode.error), /no longer open/, 'another session\'s document cannot be decoded');
  assert.deepEqual(other.events, [], 'the other connection saw none of the decode');
  assert.deepEqual((await user.request('closeDocument', { docId }, 5)).result, { closed: true });
  await Promise.all([user.close(), other.close()]);
});

/** `pid` and every process under it (Linux /proc). */
function processTree(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`)
    .flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  return [pid, ...children.flatMap(processTree)];
}

/** The most memory a process has held so far, in MB (Linux reports it as VmHWM). */
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

test('a wide message is refused from its bytes: neither the server nor the engine grows, and the other tab is answered', { skip: noEngine }, async () => {
  const other = await EngineSocket.open(address);
  assert.equal((await other.request('hello', {}, 1)).ok, true, 'the engine is up');
  const [server, engine] = ['out/main/server.js', 'engine-host.js'].map((script) => processTree(app.process.pid!)
    .find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(script))!);
  const before = [server!, engine!].map(peakRssMb);
  const wide = new WebSocket(`ws://127.0.0.1:${address.port}/ws?token=${address.token}`);
  await new Promise((resolve, reject) => { wide.once('open', resolve); wide.once('error', reject); });
  const answer = new Promise<ResponseMessage>((resolve) => wide.once('message', (d) => resolve(JSON.parse(String(d)) as ResponseMessage)));
  // 21 MB of empty arrays under a hello: parsed whole, such a message took the server and the engine to 1.1 GB
  // each and kept other tabs waiting 30 s (issue 59).
  wide.send(`{"kind":"request","id":5,"name":"hello","params":{"x":[${'[],'.repeat(7_000_000)}[]]}}`);
  assert.equal((await other.request('hello', {}, 2)).ok, true);
  assert.deepEqual(await answer, { kind: 'response', id: 5, ok: false, error: 'rejected: no request holds more than 4000000 values' });
  const [serverGrew, engineGrew] = [server!, engine!].map((pid, i) => peakRssMb(pid) - before[i]!);
  assert.ok(serverGrew! < 100, `the server grew by ${serverGrew!.toFixed(0)} MB for a 21 MB message`);
  assert.ok(engineGrew! < 20, `the engine grew by ${engineGrew!.toFixed(0)} MB`);
  wide.terminate();
  await other.close();
});

test('an export of the longest text a tab may send is refused in one line; the engine and another tab\'s document go on', { skip: noEngine }, async () => {
  const user = await EngineSocket.open(address);
  const other = await EngineSocket.open(address);
  const open = async (socket: EngineSocket) => {
    const opened = await socket.request('openSample', { name: 'scanned-page.png' }, 1);
    assert.equal(opened.ok, true, opened.error);
    return (opened.result as { doc: DocumentInfo }).doc.docId;
  };
  const [userDoc, otherDoc] = [await open(user), await open(other)];
  const engine = processTree(app.process.pid!).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('engine-host.js'))!;
  const before = peakRssMb(engine);
  // 2 M characters of one-letter words: at the old limit of 64 M such an export took the engine past 5 GB and
  // to SIGABRT, with every tab's documents (issue 59).
  const exported = await user.request('exportSearchablePdf', { docId: userDoc, text: 'a '.repeat(MAX_EXPORT_TEXT_CHARS / 2), events: [] }, 2);
  assert.equal(exported.error, `the edited text's words hold ${MAX_EXPORT_TEXT_CHARS} characters, more than the ${MAX_EXPORT_WORD_CHARS} an export lays out`);
  const grown = peakRssMb(engine) - before;
  assert.ok(grown < 200, `the engine grew by ${grown.toFixed(0)} MB`);
  assert.deepEqual((await other.request('closeDocument', { docId: otherDoc }, 2)).result, { closed: true }, 'the other tab\'s document is still open');
  await Promise.all([user.close(), other.close()]);
});
