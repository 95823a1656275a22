import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { shownPath, userFolder, userPath } from './user-folder';

test('under npm run, a typed path is taken from the folder it was typed in (INIT_CWD), not the project folder', () => {
  const typedIn = realpathSync(mkdtempSync(join(tmpdir(), 'saccade-typed-')));
  const npm = { INIT_CWD: typedIn, npm_package_json: join(process.cwd(), 'package.json') };
  assert.equal(userFolder(npm), typedIn);
  assert.equal(userPath('scans/a.pdf', npm), join(typedIn, 'scans', 'a.pdf'));
  assert.equal(userPath('/abs/a.pdf', npm), '/abs/a.pdf');
});

test('INIT_CWD is ignored outside the folder npm ran the script in, and when it is not absolute', () => {
  const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'saccade-typed-')));
  assert.equal(userFolder({}), process.cwd());
  // Inherited by a program started in another folder: that program was typed there.
  assert.equal(userFolder({ INIT_CWD: elsewhere, npm_package_json: join(elsewhere, 'package.json') }), process.cwd());
  assert.equal(userFolder({ INIT_CWD: 'relative', npm_package_json: join(process.cwd(), 'package.json') }), process.cwd());
  assert.equal(userFolder({ INIT_CWD: elsewhere }), process.cwd());
  assert.equal(userPath('a.pdf', {}), join(process.cwd(), 'a.pdf'));
});

test('a path is shown below the folder it was typed in, as typed, and absolute outside it', () => {
  const typedIn = realpathSync(mkdtempSync(join(tmpdir(), 'saccade-typed-')));
  const npm = { INIT_CWD: typedIn, npm_package_json: join(process.cwd(), 'package.json') };
  assert.equal(shownPath(join(typedIn, 'scans', 'a.pdf'), npm), join('scans', 'a.pdf'));
  assert.equal(shownPath(typedIn, npm), '.');
  assert.equal(shownPath('/elsewhere/a.pdf', npm), '/elsewhere/a.pdf');
});
