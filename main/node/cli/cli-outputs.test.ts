import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { test } from 'node:test';
import { expandInputs, type CliInput } from './cli-inputs';
import { planOutputs } from './cli-outputs';
import { userFolder } from './user-folder';

const plain = { json: false, hocr: false, pdf: false, force: false };

/** Files named on the command line, each itself. */
function named(...paths: string[]): { inputs: CliInput[]; needsFolder: boolean } {
  return { inputs: paths.map((path) => ({ path, shown: path, folder: '', name: basename(path) })), needsFolder: paths.length > 1 };
}

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-outputs-'));
  writeFileSync(join(dir, 'scan.png'), 'png');
  writeFileSync(join(dir, 'report.pdf'), 'pdf');
  return dir;
}

test('outputs: one .md file, or a folder of <stem>.md with .json / .hocr / .pdf beside', () => {
  const dir = scratch();
  assert.deepEqual(planOutputs(named(join(dir, 'scan.png')), join(dir, 'out.md'), plain).files, [{ markdown: join(dir, 'out.md'), stdout: false, json: null, hocr: null, pdf: null }]);
  const plan = planOutputs(named(join(dir, 'scan.png'), join(dir, 'a', 'scan.pdf')), join(dir, 'md'), { ...plain, json: true, hocr: true, pdf: true });
  assert.deepEqual(plan.files.map((f) => [f.markdown, f.json, f.hocr, f.pdf].map((p) => p && relative(dir, p))), [
    ['md/scan.png.md', 'md/scan.png.json', 'md/scan.png.hocr', 'md/scan.png.pdf'],
    ['md/scan.pdf.md', 'md/scan.pdf.json', 'md/scan.pdf.hocr', 'md/scan.pdf.pdf'],
  ]);
  assert.deepEqual(plan.folders, [join(dir, 'md')]);
  assert.throws(() => planOutputs(named(join(dir, 'scan.png'), join(dir, 'report.pdf')), join(dir, 'out.md'), plain), /is a file, but a folder, a glob or several inputs need a folder/);
  // Without -o only the .json goes to a file, in the folder the command was typed in.
  assert.deepEqual(planOutputs(named('/x/scan.png'), null, { ...plain, json: true }).files, [{ markdown: null, stdout: true, json: join(userFolder(), 'scan.json'), hocr: null, pdf: null }]);
  // -o naming a .pdf asks for the searchable PDF alone (and the .json beside it); a folder may end in .pdf.
  assert.deepEqual(planOutputs(named(join(dir, 'scan.png')), join(dir, 'out', 'scan.pdf'), { ...plain, json: true }).files,
    [{ markdown: null, stdout: false, json: join(dir, 'out', 'scan.json'), hocr: null, pdf: join(dir, 'out', 'scan.pdf') }]);
  assert.deepEqual(planOutputs(named(join(dir, 'scan.png')), join(dir, 'out', 'scan.pdf'), plain).folders, [join(dir, 'out')]);
  mkdirSync(join(dir, 'archive.pdf'));
  assert.equal(planOutputs(named(join(dir, 'scan.png')), join(dir, 'archive.pdf'), plain).files[0]!.markdown, join(dir, 'archive.pdf', 'scan.md'));
  assert.throws(() => planOutputs(named(join(dir, 'scan.png'), join(dir, 'report.pdf')), join(dir, 'both.pdf'), plain), /is a file, but a folder, a glob or several inputs need a folder/);
});

test('outputs never replace an input, by any name, even with --force', () => {
  const dir = scratch();
  const scan = join(dir, 'scan.png');
  linkSync(scan, join(dir, 'hard.md'));
  symlinkSync(scan, join(dir, 'soft.md'));
  for (const force of [false, true]) {
    for (const out of [scan, join(dir, '.', 'scan.png'), join(dir, 'hard.md'), join(dir, 'soft.md')]) {
      assert.throws(() => planOutputs(named(scan), out, { ...plain, force }), /is an input; the output must go elsewhere/, out);
    }
    // The .json beside report.md would be the input report.json.
    writeFileSync(join(dir, 'report.json'), '{}');
    assert.throws(() => planOutputs(named(join(dir, 'report.json')), join(dir, 'report.md'), { ...plain, json: true, force }), /report\.json is an input/);
    // A PDF's searchable copy is a new file, never the scan itself.
    assert.throws(() => planOutputs(named(join(dir, 'report.pdf')), join(dir, 'report.pdf'), { ...plain, force }), /report\.pdf is an input/);
  }
});

test('outputs replace another existing file only with --force, and never a folder', () => {
  const dir = scratch();
  const scan = join(dir, 'scan.png');
  writeFileSync(join(dir, 'notes.md'), 'mine');
  assert.throws(() => planOutputs(named(scan), join(dir, 'notes.md'), plain), new RegExp(`^Error: ${join(dir, 'notes.md')} already exists; add --force to overwrite it$`));
  assert.equal(planOutputs(named(scan), join(dir, 'notes.md'), { ...plain, force: true }).files[0]!.markdown, join(dir, 'notes.md'));
  mkdirSync(join(dir, 'md'));
  writeFileSync(join(dir, 'md', 'scan.md'), 'old');
  writeFileSync(join(dir, 'md', 'scan.hocr'), 'old');
  assert.throws(() => planOutputs(named(scan), join(dir, 'md'), { ...plain, hocr: true }), /scan\.md and 1 more output file\(s\) already exist; add --force to overwrite them/);
  mkdirSync(join(dir, 'md', 'report.md'));
  assert.throws(() => planOutputs(named(join(dir, 'report.pdf')), join(dir, 'md'), { ...plain, force: true }), /report\.md is a folder/);
});

test('a folder\'s outputs mirror its tree below -o, and names shared in one folder keep their extensions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-outputs-'));
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  mkdirSync(join(dir, 'in', 'a', 'b'), { recursive: true });
  for (const name of ['a/b/deep.pdf', 'a/x.png', 'a/x.pdf', 'a/X.tif', 'a/y.png', 'top.jpg']) writeFileSync(join(dir, 'in', name), png);
  const listed = expandInputs([join(dir, 'in')], join(dir, 'out'));
  const plan = planOutputs(listed, join(dir, 'out'), { ...plain, json: true });
  assert.deepEqual(plan.files.map((f) => [f.markdown, f.json].map((p) => p && relative(join(dir, 'out'), p))), [
    // In code point order, the same on every machine: capitals first.
    // x.png, x.pdf and X.tif would share x.md on a file system that ignores case: each keeps its extension.
    ['a/X.tif.md', 'a/X.tif.json'],
    ['a/b/deep.md', 'a/b/deep.json'],
    ['a/x.pdf.md', 'a/x.pdf.json'],
    ['a/x.png.md', 'a/x.png.json'],
    ['a/y.md', 'a/y.json'],
    ['top.md', 'top.json'],
  ]);
  assert.deepEqual(plan.folders.map((f) => relative(dir, f)).sort(), ['out', 'out/a', 'out/a/b']);
  // The same name from two folders named on the command line: it keeps its extension, and the later takes -2.
  const twice = planOutputs(named(join(dir, 'in', 'a', 'y.png'), join(dir, 'in', 'a', 'b', 'y.png')), join(dir, 'md'), plain);
  assert.deepEqual(twice.files.map((f) => basename(f.markdown!)), ['y.png.md', 'y.png-2.md']);
  // Nothing overwrites: an existing output is refused as for one file.
  mkdirSync(join(dir, 'out', 'a'), { recursive: true });
  writeFileSync(join(dir, 'out', 'a', 'y.md'), 'mine');
  assert.throws(() => planOutputs(listed, join(dir, 'out'), plain), /out\/a\/y\.md already exists; add --force/);
});

test('a folder, a glob or several inputs need -o naming a folder; standard input needs -o', () => {
  const dir = scratch();
  const folder = { inputs: named(join(dir, 'scan.png')).inputs, needsFolder: true };
  assert.throws(() => planOutputs(folder, null, plain), /^Error: a folder, a glob or several inputs need -o naming the folder their outputs go to$/);
  assert.throws(() => planOutputs(folder, join(dir, 'out.md'), plain), /out\.md is a file, but a folder, a glob or several inputs need a folder/);
  assert.throws(() => planOutputs(named(join(dir, 'scan.png'), join(dir, 'report.pdf')), null, plain), /need -o naming the folder/);
  const stdin = { inputs: [{ path: null, shown: 'standard input', folder: '', name: 'stdin' }], needsFolder: false };
  assert.throws(() => planOutputs(stdin, null, plain), /^Error: standard input \(-\) needs -o naming the output$/);
  assert.deepEqual(planOutputs(stdin, join(dir, 'piped.md'), { ...plain, json: true }).files,
    [{ markdown: join(dir, 'piped.md'), stdout: false, json: join(dir, 'piped.json'), hocr: null, pdf: null }]);
  assert.equal(planOutputs(stdin, join(dir, 'md'), plain).files[0]!.markdown, join(dir, 'md', 'stdin.md'));
});
