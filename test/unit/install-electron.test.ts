// `npm install` on a machine that cannot download Electron's binary: Electron's own postinstall (which exits
// 1 and fails the install) is denied by allowScripts, and our install step runs its download instead, where a
// failure is one line and the install goes on.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { electronBinary } from '../support/electron-binary';

const root = join(__dirname, '..', '..');

test('npm runs our Electron step, not Electron\'s own postinstall', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; allowScripts: Record<string, boolean> };
  assert.equal(pkg.allowScripts.electron, false);
  assert.match(pkg.scripts.install!, /^node scripts\/install-electron\.mjs && /);
});

test('a download that fails is one line saying the desktop shell is unavailable, and exits 0', { skip: electronBinary() ? 'Electron is installed here' : false }, () => {
  // A mirror nobody listens on and an empty cache: the download fails at once, whatever the network.
  const cache = mkdtempSync(join(tmpdir(), 'saccade-electron-cache-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_MIRROR: 'http://127.0.0.1:9/', electron_config_cache: cache };
  delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
  const r = spawnSync(process.execPath, ['scripts/install-electron.mjs'], { cwd: root, env, encoding: 'utf8' });
  rmSync(cache, { recursive: true });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^saccade: the Electron desktop shell is unavailable \(its binary could not be downloaded: RequestError: connect ECONNREFUSED 127\.0\.0\.1:9\); `npm start` will serve the UI for a browser instead\.\n$/);
  assert.equal(electronBinary(), null);
});
