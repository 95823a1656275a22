import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_MODEL_CARD_CHARS } from '../../../common/protocol';
import { checkModelFolder, readModelCard } from './model-folder';

test('a model card is cut at its bound, and one that is a link is not followed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-card-'));
  assert.equal(readModelCard(dir), null);
  writeFileSync(join(dir, 'README.md'), `# Tiny\n${'x'.repeat(2 * MAX_MODEL_CARD_CHARS)}`);
  const card = readModelCard(dir)!;
  assert.ok(card.startsWith('# Tiny\n'));
  assert.equal(card.length, MAX_MODEL_CARD_CHARS + 2);
  const linked = mkdtempSync(join(tmpdir(), 'saccade-card-'));
  symlinkSync(join(dir, 'README.md'), join(linked, 'README.md'));
  assert.equal(readModelCard(linked), null);
});

test('a model card that is a hard link, a pipe, or not text, is not shown', () => {
  const secret = join(mkdtempSync(join(tmpdir(), 'saccade-secret-')), 'passwords');
  writeFileSync(secret, 'root:x:0:0');
  const dir = mkdtempSync(join(tmpdir(), 'saccade-card-'));
  linkSync(secret, join(dir, 'README.md'));
  assert.equal(readModelCard(dir), null);
  const binary = mkdtempSync(join(tmpdir(), 'saccade-card-'));
  writeFileSync(join(binary, 'README.md'), Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02]));
  assert.equal(readModelCard(binary), null);
  // Opened without waiting for a writer, and refused as no regular file.
  const pipe = mkdtempSync(join(tmpdir(), 'saccade-card-'));
  execFileSync('mkfifo', [join(pipe, 'README.md')]);
  assert.equal(readModelCard(pipe), null);
});

test('a model folder path must be absolute, bounded and name a folder with a config.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-folder-'));
  assert.throws(() => checkModelFolder(dir), /no config\.json/);
  writeFileSync(join(dir, 'config.json'), '{}');
  assert.equal(checkModelFolder(dir), dir);
  assert.throws(() => checkModelFolder('x'.repeat(5000)), /not a folder path/);
  assert.throws(() => checkModelFolder('/a\0b'), /not a folder path/);
  assert.throws(() => checkModelFolder('models/tiny'), /full path/);
  assert.throws(() => checkModelFolder(join(dir, 'config.json')), /not a folder/);
});
