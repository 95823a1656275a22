// Who the browser server answers (docs/threat-model.md): only its own page, on this machine. The Host header
// must name a loopback address with the server's port (a DNS-rebinding page sends its own name there); an
// Origin, where a browser sends one, must be that same address (another site's page sends its own); and a
// WebSocket must carry the token printed at launch, which no other page or local user has seen.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** A request's target as the server reads it; null when it does not parse (which is the client's fault). */
export function requestTarget(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? '/', 'http://target.invalid');
  } catch {
    return null;
  }
}

export class LoopbackGuard {
  /** Per launch: 256 random bits, in the printed URL and nowhere else. */
  readonly token = randomBytes(32).toString('base64url');

  constructor(private readonly port: number) {}

  /** The Host the request names when it is this server on loopback (lower-cased), else null. */
  ownHost(req: IncomingMessage): string | null {
    const host = req.headers.host?.toLowerCase();
    return host !== undefined && LOOPBACK_NAMES.some((name) => host === `${name}:${this.port}`) ? host : null;
  }

  /** No Origin (a navigation, a non-browser client) or the page's own; 'null' and every other site are refused. */
  originAllowed(req: IncomingMessage, host: string): boolean {
    const origin = req.headers.origin;
    return origin === undefined || origin.toLowerCase() === `http://${host}`;
  }

  /** The token on the request's URL, compared in constant time. */
  tokenMatches(target: URL): boolean {
    const given = Buffer.from(target.searchParams.get('token') ?? '');
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
