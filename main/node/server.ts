// The browser transport: serves the renderer and bridges each WebSocket connection to an engine session of its
// own, so the same UI runs in any browser (used by `npm start` where Electron is absent, and to watch a remote
// GPU box).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { WebSocketServer } from 'ws';
import { checkRequest } from '../../common/protocol';
import { EngineClient } from './engine-client';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.wasm': 'application/wasm',
  '.mjs': 'text/javascript',
};

const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
  "font-src 'self' data:", "worker-src 'self' blob:", "connect-src 'self' ws: wss:",
].join('; ');

export function startServer(port: number, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const root = join(__dirname, '..', 'renderer');
  const server = createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(root, urlPath === '/' ? 'index.html' : urlPath));
    if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
    });
    createReadStream(file).pipe(res);
  });

  const engine = new EngineClient();
  const wss = new WebSocketServer({ server, path: '/ws', maxPayload: 512 * 1024 * 1024 });
  wss.on('connection', (socket) => {
    // Its own session: only its documents' events, answers under its own request ids.
    const connection = engine.connect((message) => socket.send(JSON.stringify(message)));
    socket.on('close', () => connection.close());
    socket.on('message', async (data) => {
      let parsed: unknown;
      try { parsed = JSON.parse(String(data)); } catch { parsed = null; }
      const checked = checkRequest(parsed);
      if (!checked.ok) {
        socket.send(JSON.stringify({ kind: 'response', id: -1, ok: false, error: `rejected: ${checked.reason}` }));
        return;
      }
      socket.send(JSON.stringify(await connection.request(checked.value)));
    });
  });
  server.on('close', () => engine.close());

  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const addr = server.address();
      const actual = typeof addr === 'object' && addr ? addr.port : port;
      resolve({ server, url: `http://${host}:${actual}/` });
    });
  });
}

if (require.main === module) {
  const port = Number(process.env.SACCADE_PORT ?? 5417);
  void startServer(port).then(({ url }) => console.log(`Saccade is serving its UI at ${url}`));
}
