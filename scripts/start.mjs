// `npm start`: opens the Electron app; where no Electron binary exists (it could not be downloaded), serves
// the same UI for a browser at a printed localhost URL instead.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function electronBinary() {
  try {
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

if (!existsSync('out/main/server.js')) {
  console.error("saccade: the app is not built; run 'npm run build' first.");
  process.exit(1);
}

const binary = process.env.SACCADE_BROWSER === '1' ? null : electronBinary();
const child = binary
  ? spawn(binary, ['.'], { stdio: 'inherit' })
  : (console.log('Electron is not installed here (its binary could not be downloaded); serving the UI for a browser instead.'),
    spawn(process.execPath, ['out/main/server.js'], { stdio: 'inherit' }));
child.on('exit', (code) => process.exit(code ?? 0));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
