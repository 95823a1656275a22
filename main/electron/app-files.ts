// The app:// protocol maps app://saccade/<path> to a file inside the renderer folder, and nothing else. A
// request that cannot be such a file gets a status instead: a path that is not valid percent-encoding ('%',
// '%zz': decodeURIComponent throws) or holds a NUL, 400; another host, or a path that leaves the folder once
// decoded, or names a folder, 403. The URL parser folds '..' and '%2e%2e' segments itself, but an encoded separator
// ('..%2f', '..%5c' on Windows) only shows up after decoding, so the folder is checked on the decoded path.
import { join, normalize, sep } from 'node:path';
import { APP_ORIGIN } from './ipc-channels';

export type AppFile = { path: string } | { status: 400 | 403 };

const APP = new URL(APP_ORIGIN);

export function appFile(root: string, requestUrl: string): AppFile {
  let url: URL;
  let relative: string;
  try {
    url = new URL(requestUrl);
    relative = decodeURIComponent(url.pathname);
  } catch {
    return { status: 400 };
  }
  if (url.protocol !== APP.protocol || url.host !== APP.host) return { status: 403 };
  if (relative.includes('\0')) return { status: 400 };
  const path = normalize(join(root, relative));
  // A folder is no file either: Chromium would answer a file:// folder with a listing of it.
  return path.startsWith(normalize(root) + sep) && !path.endsWith(sep) ? { path } : { status: 403 };
}
