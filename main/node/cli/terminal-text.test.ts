// Untrusted text on its way to a terminal: control characters and reordering marks become visible escapes,
// and the CLI's `error:` and `failed:` lines about a file with such a name print none of them raw.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { addonPath } from '../engine/native-addon';
import { terminalJson, terminalText } from './terminal-text';

/** Retitles the window (OSC 0 ... BEL), then clears the screen (CSI 2 J). */
const HOSTILE = '\u001b]0;owned\u0007\u001b[2J';
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

test('control characters, C1 controls and bidirectional overrides are written as escapes', () => {
  assert.equal(terminalText(`scan${HOSTILE}.png`), 'scan\\x1b]0;owned\\x07\\x1b[2J.png');
  assert.equal(terminalText('a\nb\rc\td\u009be\u202ef\u2066'), 'a\\x0ab\\x0dc\\x09d\\x9be\\u202ef\\u2066');
  assert.equal(terminalText('Straße 東京 naïve — ok'), 'Straße 東京 naïve — ok');
});

test('JSON for a terminal escapes the controls JSON.stringify leaves, and reads back the same', () => {
  const value = { doc: 'a\u001b[2Jb\u009b31mc\u202ed', n: 1 };
  const json = terminalJson(value);
  assert.equal(json, '{"doc":"a\\u001b[2Jb\\u009b31mc\\u202ed","n":1}');
  assert.deepEqual(JSON.parse(json), value);
});

test('the CLI\'s error: and failed: lines escape a file\'s name', { skip: !existsSync(addonPath()) && 'native engine not built' }, async () => {
  const root = join(__dirname, '..', '..', '..');
  const { writeTinyCheckpoint } = (await import(join(root, 'native', 'test', 'tiny-checkpoint.mjs'))) as { writeTinyCheckpoint(name: string): string };
  const model = writeTinyCheckpoint('terminal-text');
  const dir = mkdtempSync(join(tmpdir(), 'saccade-names-'));
  const bad = join(dir, `scan${HOSTILE}.png`);
  writeFileSync(bad, 'not an image');
  writeFileSync(join(dir, 'also-bad.pdf'), '%PDF-1.4 truncated');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'cli.ts'), bad, join(dir, 'also-bad.pdf'), '-o', join(dir, 'md'), '--model', model],
    { encoding: 'utf8', cwd: root });
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stderr.split('\n');
  const error = lines.find((l) => l.startsWith('error: ') && l.includes('scan'));
  assert.ok(error?.includes('scan\\x1b]0;owned\\x07\\x1b[2J.png'), r.stderr);
  assert.ok(lines.some((l) => l.startsWith('failed: ')), r.stderr);
  assert.doesNotMatch(r.stderr.replace(/\r/g, ''), RAW_CONTROL);
});

test('the CLI\'s refusal of an option or a path escapes what it quotes, and its usage keeps its lines', () => {
  const root = join(__dirname, '..', '..', '..');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'cli.ts'), 'a.png', '--mode', `spec${HOSTILE}`], { encoding: 'utf8', cwd: root });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /\\x1b\]0;owned\\x07/);
  assert.doesNotMatch(r.stderr.replace(/\r/g, ''), RAW_CONTROL);
  const usage = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'cli.ts'), '--help'], { encoding: 'utf8', cwd: root });
  assert.ok(usage.stderr.trim().split('\n').length > 3, 'the usage text keeps its line breaks');
});
