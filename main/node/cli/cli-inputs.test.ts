import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { expandInputs } from './cli-inputs';
import { parseGlob } from './path-glob';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PDF = Buffer.from('%PDF-1.7\n');

function tree(files: Record<string, Buffer | string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'saccade-inputs-')));
  for (const [name, bytes] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), bytes);
  }
  return dir;
}

test('a folder is read with its subfolders in code point order, each file where it lies, taken by its content or its extension', () => {
  const dir = tree({
    'in/b.pdf': PDF, 'in/a/z.png': PNG, 'in/a/B.tif': 'not a tiff, but named one', 'in/scan.dat': PNG,
    'in/notes.txt': 'hello', 'in/.hidden.pdf': PDF, 'in/.git/x.pdf': PDF, 'in/empty/.keep': '',
  });
  const listed = expandInputs([join(dir, 'in')], null);
  assert.deepEqual(listed.inputs.map((i) => [relative(dir, i.path!), i.folder, i.name]), [
    ['in/a/B.tif', 'a', 'B.tif'],
    ['in/a/z.png', 'a', 'z.png'],
    ['in/b.pdf', '', 'b.pdf'],
    // A PNG by its signature, whatever its name.
    ['in/scan.dat', '', 'scan.dat'],
  ]);
  // Hidden names pass silently; what else is not read gets a line each.
  assert.deepEqual(listed.skipped, [`skipped ${join(dir, 'in', 'notes.txt')}: not a PDF, PNG, JPEG or TIFF file`]);
  assert.deepEqual(listed.failed, []);
  assert.equal(listed.needsFolder, true);
});

test('links that leave the folder or lead to a folder are skipped with a line; a file met twice is read once', () => {
  const dir = tree({ 'in/a.pdf': PDF, 'in/inner/.keep': '', 'outside/secret.pdf': PDF });
  symlinkSync(join(dir, 'outside', 'secret.pdf'), join(dir, 'in', 'leak.pdf'));
  symlinkSync(join(dir, 'outside'), join(dir, 'in', 'away'));
  symlinkSync(join(dir, 'in', 'inner'), join(dir, 'in', 'more'));
  symlinkSync(join(dir, 'nowhere.pdf'), join(dir, 'in', 'broken.pdf'));
  symlinkSync(join(dir, 'in', 'a.pdf'), join(dir, 'in', 'b-link.pdf'));
  linkSync(join(dir, 'in', 'a.pdf'), join(dir, 'in', 'c-hard.pdf'));
  execFileSync('mkfifo', [join(dir, 'in', 'pipe.pdf')]);
  const listed = expandInputs([join(dir, 'in')], null);
  assert.deepEqual(listed.inputs.map((i) => i.name), ['a.pdf']);
  const shown = (name: string) => join(dir, 'in', name);
  assert.deepEqual(listed.skipped, [
    `skipped ${shown('away')}: a link that leads outside the folder`,
    `skipped ${shown('b-link.pdf')}: the same file as ${shown('a.pdf')}`,
    `skipped ${shown('broken.pdf')}: a broken link`,
    `skipped ${shown('c-hard.pdf')}: the same file as ${shown('a.pdf')}`,
    `skipped ${shown('leak.pdf')}: a link that leads outside the folder`,
    `skipped ${shown('more')}: a link to a folder`,
    `skipped ${shown('pipe.pdf')}: not a regular file`,
  ]);
});

test('the output folder inside the input folder is not read; an empty or unreadable folder fails with a line', () => {
  const dir = tree({ 'in/a.pdf': PDF, 'in/out/a.pdf': PDF, 'in/sub/b.pdf': PDF, 'empty/.keep': '' });
  assert.deepEqual(expandInputs([join(dir, 'in')], join(dir, 'in', 'out')).inputs.map((i) => relative(dir, i.path!)), ['in/a.pdf', 'in/sub/b.pdf']);
  const empty = expandInputs([join(dir, 'empty')], null);
  assert.deepEqual([empty.inputs, empty.failed], [[], [{ shown: join(dir, 'empty'), reason: 'no PDF, PNG, JPEG or TIFF file in it' }]]);
  // Root reads every folder whatever its mode.
  if (process.getuid?.() !== 0) {
    chmodSync(join(dir, 'in', 'sub'), 0);
    try {
      const listed = expandInputs([join(dir, 'in')], null);
      assert.deepEqual(listed.inputs.map((i) => i.name), ['a.pdf', 'a.pdf']);
      assert.deepEqual(listed.failed, [{ shown: join(dir, 'in', 'sub'), reason: 'permission denied' }]);
    } finally {
      chmodSync(join(dir, 'in', 'sub'), 0o755);
    }
  }
});

test('a quoted glob is walked from its fixed folder, its matches placed below it; a file named itself is taken as it is', () => {
  const dir = tree({ 'scans/a/one.tif': PNG, 'scans/a/b/two.tif': PNG, 'scans/three.tif': PNG, 'scans/four.png': PNG, 'scans/.h/five.tif': PNG });
  const all = expandInputs([`${dir}/scans/**/*.tif`], null);
  assert.deepEqual(all.inputs.map((i) => [i.folder, i.name]), [['a/b', 'two.tif'], ['a', 'one.tif'], ['', 'three.tif']]);
  assert.equal(all.needsFolder, true);
  assert.deepEqual(expandInputs([`${dir}/scans/*.tif`], null).inputs.map((i) => i.name), ['three.tif']);
  assert.deepEqual(expandInputs([`${dir}/scans/*/*.tif`], null).inputs.map((i) => i.name), ['one.tif']);
  assert.deepEqual(expandInputs([`${dir}/scans/*.gif`], null).failed, [{ shown: `${dir}/scans/*.gif`, reason: 'no PDF, PNG, JPEG or TIFF file matches it' }]);
  // Named itself, a file is read whatever it holds (and fails then with a line); '-' is standard input.
  const named = expandInputs([join(dir, 'notes.txt'), '-'], null);
  assert.deepEqual(named.inputs.map((i) => [i.path, i.shown, i.folder, i.name]), [
    [join(dir, 'notes.txt'), join(dir, 'notes.txt'), '', 'notes.txt'], [null, 'standard input', '', 'stdin']]);
  assert.equal(named.needsFolder, true);
  assert.equal(expandInputs([join(dir, 'scans', 'four.png')], null).needsFolder, false);
});

test('glob patterns: * and ? within a name, [classes], ** across folders', () => {
  const g = parseGlob('scans/**/p?ge-[0-9]*.tif');
  assert.deepEqual([g.base, g.depth], ['scans', Infinity]);
  for (const yes of ['page-1.tif', 'a/b/page-12.tif', 'a/pAge-0x.tif']) assert.ok(g.matches(yes), yes);
  for (const no of ['page-x.tif', 'a/page-1.tiff', 'page-1.tif/x', 'a/b/page-.tif']) assert.ok(!g.matches(no), no);
  assert.deepEqual([parseGlob('/abs/*.pdf').base, parseGlob('*.pdf').base, parseGlob('/*.pdf').base], ['/abs', '.', '/']);
  assert.equal(parseGlob('a/*/b/*.pdf').depth, 2);
  const negated = parseGlob('[!a]*.pdf');
  assert.deepEqual([negated.matches('b.pdf'), negated.matches('a.pdf'), negated.matches('x/b.pdf')], [true, false, false]);
  // What a regular expression would read otherwise is literal.
  const literal = parseGlob('a+b(1).pdf*');
  assert.deepEqual([literal.matches('a+b(1).pdf'), literal.matches('aab1.pdf')], [true, false]);
});
