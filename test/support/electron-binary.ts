// The Electron binary, where one was downloaded (it cannot be on CI and development machines here).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

export function electronBinary(): string | null {
  try {
    const path = createRequire(__filename)('electron') as unknown;
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}
