// `npm start`: opens the Electron app; where no Electron binary exists (it could not be downloaded), serves
// the same UI for a browser at a printed localhost URL instead.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { electronBinary } from './electron-binary.mjs';

if (!existsSync('out/main/server.js')) {
  console.error("saccade: the app is not built; run 'npm run build' first.");
  process.exit(1);
}

const browser = process.env.SACCADE_BROWSER === '1';
const binary = browser ? null : electronBinary();
if (!binary) {
  console.log(browser ? 'saccade: SACCADE_BROWSER=1: serving the UI for a browser.'
    : 'saccade: the Electron desktop shell is unavailable (its binary is not installed here); serving the UI for a browser instead.');
}
const child = binary ? spawn(binary, ['.'], { stdio: 'inherit' }) : spawn(process.execPath, ['out/main/server.js'], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 0));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
