import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_RECENT_MODEL_FOLDERS, RecentModelFolders } from './recent-model-folders';

function folders(n: number): string[] {
  const root = mkdtempSync(join(tmpdir(), 'saccade-models-'));
  return Array.from({ length: n }, (_, i) => {
    const dir = join(root, `model-${i}`);
    mkdirSync(dir);
    return dir;
  });
}

test('the folder used last comes first, each folder once, and the list keeps its bound', () => {
  const dirs = folders(MAX_RECENT_MODEL_FOLDERS + 2);
  const file = join(mkdtempSync(join(tmpdir(), 'saccade-config-')), 'nested', 'recent-models.json');
  const recent = new RecentModelFolders(file);
  assert.deepEqual(recent.list(), []);
  for (const d of dirs) recent.add(d);
  recent.add(dirs[3]!);
  const list = new RecentModelFolders(file).list();
  assert.equal(list.length, MAX_RECENT_MODEL_FOLDERS);
  assert.equal(list[0], dirs[3]);
  assert.equal(list[1], dirs.at(-1));
  assert.equal(new Set(list).size, list.length);
  assert.ok(!list.includes(dirs[0]!), 'the oldest folder fell off');
});

test('entries that are not existing folders are dropped, and a broken file reads as empty', () => {
  const [kept] = folders(1);
  const file = join(mkdtempSync(join(tmpdir(), 'saccade-config-')), 'recent-models.json');
  writeFileSync(file, JSON.stringify([42, '', 'relative/dir', '/no/such/folder', file, kept, kept, { path: kept }]));
  assert.deepEqual(new RecentModelFolders(file).list(), [kept]);
  writeFileSync(file, '{not json');
  assert.deepEqual(new RecentModelFolders(file).list(), []);
  writeFileSync(file, '{"folders": []}');
  assert.deepEqual(new RecentModelFolders(file).list(), []);
  new RecentModelFolders(file).add(kept!);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), [kept]);
});

test('a list file that is a pipe or a device reads as empty, without waiting for a writer', () => {
  const [kept] = folders(1);
  const file = join(mkdtempSync(join(tmpdir(), 'saccade-config-')), 'recent-models.json');
  execFileSync('mkfifo', [file]);
  // A writer that would give a reader that opened the pipe a list naming a real folder.
  const writer = spawn('sh', ['-c', 'printf "%s" "$1" > "$0"', file, JSON.stringify([kept])], { stdio: 'ignore' });
  try {
    assert.deepEqual(new RecentModelFolders(file).list(), []);
  } finally {
    writer.kill();
  }
  const device = join(mkdtempSync(join(tmpdir(), 'saccade-config-')), 'recent-models.json');
  symlinkSync('/dev/zero', device);
  assert.deepEqual(new RecentModelFolders(device).list(), []);
});

test('without a file the list lives in memory', () => {
  const [a, b] = folders(2);
  const recent = new RecentModelFolders(null);
  recent.add(a!);
  recent.add(b!);
  assert.deepEqual(recent.list(), [b, a]);
});
