// The path of Electron's binary where one was downloaded, else null (the electron package resolves to the
// path it would have, or throws, whether or not the binary is there).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function electronBinary() {
  try {
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}
