// Part of `npm install`: downloads Electron's binary, as Electron's own postinstall would. package.json's
// allowScripts denies that postinstall because its failure fails the whole install, and a machine that
// cannot reach the download (offline, behind a proxy) should still install and get the browser UI from
// `npm start`. Here a failed download is one line saying the desktop shell is unavailable, and the install
// goes on.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { electronBinary } from './electron-binary.mjs';

const require = createRequire(import.meta.url);

function unavailable(why) {
  console.error(`saccade: the Electron desktop shell is unavailable (${why}); \`npm start\` will serve the UI for a browser instead.`);
  process.exit(0);
}

let installer;
try {
  installer = require.resolve('electron/install.js');
} catch {
  unavailable('the electron package is not installed');
}
const r = spawnSync(process.execPath, [installer], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
// The installer prints a stack; its first line says what went wrong.
const reason = (r.error?.message ?? r.stderr ?? '').split('\n').find((l) => l.trim())?.trim();
if (r.status !== 0) unavailable(`its binary could not be downloaded: ${reason ?? `exit status ${r.status}`}`);
if (!electronBinary()) {
  unavailable(process.env.ELECTRON_SKIP_BINARY_DOWNLOAD ? 'ELECTRON_SKIP_BINARY_DOWNLOAD is set, so its binary was not downloaded' : 'its binary is missing after the download');
}
