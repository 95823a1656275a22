import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { planOutputs } from './cli-outputs';

const plain = { json: false, hocr: false, pdf: false, force: false };

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-outputs-'));
  writeFileSync(join(dir, 'scan.png'), 'png');
  writeFileSync(join(dir, 'report.pdf'), 'pdf');
  return dir;
}

test('outputs: one .md file, or a folder of <stem>.md with unique stems and .json / .hocr / .pdf beside', () => {
  const dir = scratch();
  assert.deepEqual(planOutputs([join(dir, 'scan.png')], join(dir, 'out.md'), plain).files, [{ markdown: join(dir, 'out.md'), stdout: false, json: null, hocr: null, pdf: null }]);
  const plan = planOutputs([join(dir, 'scan.png'), join(dir, 'a', 'scan.pdf')], join(dir, 'md'), { ...plain, json: true, hocr: true, pdf: true });
  assert.deepEqual(plan.files.map((f) => [f.markdown, f.json, f.hocr, f.pdf].map((p) => p && relative(dir, p))), [
    ['md/scan.md', 'md/scan.json', 'md/scan.hocr', 'md/scan.pdf'],
    ['md/scan-2.md', 'md/scan-2.json', 'md/scan-2.hocr', 'md/scan-2.pdf'],
  ]);
  assert.deepEqual(plan.folders, [join(dir, 'md')]);
  assert.throws(() => planOutputs([join(dir, 'scan.png'), join(dir, 'report.pdf')], join(dir, 'out.md'), plain), /is a file, but 2 inputs need a folder/);
  // Without -o only the .json goes to a file, in the working folder.
  assert.deepEqual(planOutputs(['x/scan.png'], null, { ...plain, json: true }).files, [{ markdown: null, stdout: true, json: 'scan.json', hocr: null, pdf: null }]);
  // -o naming a .pdf asks for the searchable PDF alone (and the .json beside it); a folder may end in .pdf.
  assert.deepEqual(planOutputs([join(dir, 'scan.png')], join(dir, 'out', 'scan.pdf'), { ...plain, json: true }).files,
    [{ markdown: null, stdout: false, json: join(dir, 'out', 'scan.json'), hocr: null, pdf: join(dir, 'out', 'scan.pdf') }]);
  assert.deepEqual(planOutputs([join(dir, 'scan.png')], join(dir, 'out', 'scan.pdf'), plain).folders, [join(dir, 'out')]);
  mkdirSync(join(dir, 'archive.pdf'));
  assert.equal(planOutputs([join(dir, 'scan.png')], join(dir, 'archive.pdf'), plain).files[0]!.markdown, join(dir, 'archive.pdf', 'scan.md'));
  assert.throws(() => planOutputs([join(dir, 'scan.png'), join(dir, 'report.pdf')], join(dir, 'both.pdf'), plain), /is a file, but 2 inputs need a folder/);
});

test('outputs never replace an input, by any name, even with --force', () => {
  const dir = scratch();
  const scan = join(dir, 'scan.png');
  linkSync(scan, join(dir, 'hard.md'));
  symlinkSync(scan, join(dir, 'soft.md'));
  for (const force of [false, true]) {
    for (const out of [scan, join(dir, '.', 'scan.png'), join(dir, 'hard.md'), join(dir, 'soft.md')]) {
      assert.throws(() => planOutputs([scan], out, { ...plain, force }), /is an input; the output must go elsewhere/, out);
    }
    // The .json beside report.md would be the input report.json.
    writeFileSync(join(dir, 'report.json'), '{}');
    assert.throws(() => planOutputs([join(dir, 'report.json')], join(dir, 'report.md'), { ...plain, json: true, force }), /report\.json is an input/);
    // A PDF's searchable copy is a new file, never the scan itself.
    assert.throws(() => planOutputs([join(dir, 'report.pdf')], join(dir, 'report.pdf'), { ...plain, force }), /report\.pdf is an input/);
  }
});

test('outputs replace another existing file only with --force, and never a folder', () => {
  const dir = scratch();
  const scan = join(dir, 'scan.png');
  writeFileSync(join(dir, 'notes.md'), 'mine');
  assert.throws(() => planOutputs([scan], join(dir, 'notes.md'), plain), new RegExp(`^Error: ${join(dir, 'notes.md')} already exists; add --force to overwrite it$`));
  assert.equal(planOutputs([scan], join(dir, 'notes.md'), { ...plain, force: true }).files[0]!.markdown, join(dir, 'notes.md'));
  mkdirSync(join(dir, 'md'));
  writeFileSync(join(dir, 'md', 'scan.md'), 'old');
  writeFileSync(join(dir, 'md', 'scan.hocr'), 'old');
  assert.throws(() => planOutputs([scan], join(dir, 'md'), { ...plain, hocr: true }), /scan\.md and 1 more output file\(s\) already exist; add --force to overwrite them/);
  mkdirSync(join(dir, 'md', 'report.md'));
  assert.throws(() => planOutputs([join(dir, 'report.pdf')], join(dir, 'md'), { ...plain, force: true }), /report\.md is a folder/);
});
