// Serves the built renderer to the browser, with headers that keep other sites out of it: no framing, no
// connections but to this server's own socket, no MIME sniffing, no referrer carrying the launch token.
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.wasm': 'application/wasm',
  '.mjs': 'text/javascript',
};

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/** The page's policy; `host` is the validated Host header, so the socket it may open is exactly this server's. */
function pageCsp(host: string): string {
  return [
    "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
    "font-src 'self' data:", "worker-src 'self' blob:", `connect-src 'self' ws://${host}`, "object-src 'none'",
    "base-uri 'none'", "frame-ancestors 'none'",
  ].join('; ');
}

/** A short plain-text answer that nothing can embed or run. */
export function refuse(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, {
    ...COMMON_HEADERS, 'content-type': 'text/plain; charset=utf-8',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  }).end(text);
}

export function serveFile(root: string, req: IncomingMessage, res: ServerResponse, target: URL, host: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'method not allowed');
  let urlPath: string;
  try {
    urlPath = decodeURIComponent(target.pathname);
  } catch {
    return refuse(res, 400, 'malformed path');
  }
  const file = normalize(join(root, urlPath === '/' ? 'index.html' : urlPath));
  if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) return refuse(res, 404, 'not found');
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-security-policy': pageCsp(host),
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  // A file that goes away between the check and the read ends this response, not the server.
  createReadStream(file).on('error', () => res.destroy()).pipe(res);
}
