// Where the batch queue's Redis is: --redis URL, else $SACCADE_REDIS_URL, else this machine's default port.
// A Redis without a password is accepted only on loopback: anyone who reaches a queue can make the workers
// read any document under their root and write its Markdown, so a queue shared between machines needs a
// password (or an ACL user), and over a network it should also use TLS (rediss://).
import { isIP } from 'node:net';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

function loopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/** The checked URL: redis:// or rediss://, and a password unless the host is this machine. */
export function redisUrl(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const text = given ?? env.SACCADE_REDIS_URL ?? DEFAULT_REDIS_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`not a Redis URL: ${text.replace(/:[^:@/]*@/, ':***@')}`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error(`a Redis URL starts with redis:// or rediss://, not ${url.protocol}//`);
  if (!url.password && !loopback(url.hostname)) {
    throw new Error(`Redis at ${url.hostname} has no password: a queue off this machine needs one (redis://:PASSWORD@${url.hostname}, or rediss:// for TLS; README "Large archives")`);
  }
  return text;
}
