// The batch's storage, without Redis or the engine: folders opened once and written through whatever is done
// to their paths since; outputs that never replace a file the store did not write; page records checked as
// data before anything is written from them.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_DECODE_OPTIONS } from '../../../common/engine-types';
import { FolderHandle } from './folder-handle';
import { checkRecord, type PageRecord } from './page-record';
import { PageStore } from './page-store';

const PAGE: PageRecord = {
  v: 2, info: { index: 0, width: 100, height: 50 },
  recognised: [{ kind: 'text', lines: ['a <b> & c'] }],
  hocr: { angle: 0, regions: [{ kind: 'text', box: { x0: 0, y0: 0, x1: 100, y1: 20 }, lines: [{ box: { x0: 0, y0: 0, x1: 100, y1: 20 }, words: [{ text: '<b>', box: { x0: 0, y0: 0, x1: 10, y1: 20 }, confidence: 0.9 }] }] }] },
  json: null,
};
const DOC = { docId: 'k', name: 'a.png', format: 'png' as const };

function root(): string {
  return mkdtempSync(join(tmpdir(), 'saccade-store-'));
}

test('a folder opened once is written through, wherever it is moved; a link on the way is refused', () => {
  const r = root();
  const outside = root();
  const folder = FolderHandle.open(r, 'out/sub', true);
  renameSync(join(r, 'out'), join(r, 'moved'));
  symlinkSync(outside, join(r, 'out'));
  writeFileSync(folder.at('a.md'), 'x');
  folder.close();
  assert.deepEqual(readdirSync(outside), []);
  assert.equal(readFileSync(join(r, 'moved', 'sub', 'a.md'), 'utf8'), 'x');
  assert.throws(() => FolderHandle.open(r, 'out/sub', true), /^Error: out is a link or a file, not a folder: outputs are not written through links$/);
  writeFileSync(join(r, 'file'), '');
  assert.throws(() => FolderHandle.open(r, 'file/x', true), /file is a link or a file, not a folder/);
  assert.throws(() => FolderHandle.open(r, 'moved', false).at('../x'), /"\.\.\/x" is not a file name/);
});

test('outputs never replace a file the store did not write; its own earlier output is replaced', () => {
  const r = root();
  mkdirSync(join(r, 'out'));
  writeFileSync(join(r, 'out', 'mine.md'), 'my notes\n');
  const folder = FolderHandle.open(r, 'out', false);
  const store = PageStore.open(folder, 'k');
  try {
    assert.equal(store.put(0, PAGE), true);
    assert.equal(store.put(0, PAGE), false, 'a page is kept once');
    assert.throws(() => store.assemble(DOC, 1, DEFAULT_DECODE_OPTIONS, { stem: 'mine', json: false, hocr: false }),
      /^Error: mine\.md is there already and this batch did not write it: it is not replaced/);
    assert.equal(readFileSync(join(r, 'out', 'mine.md'), 'utf8'), 'my notes\n');

    store.assemble(DOC, 1, DEFAULT_DECODE_OPTIONS, { stem: 'a', json: false, hocr: true });
    const md = readFileSync(join(r, 'out', 'a.md'), 'utf8');
    assert.equal(md, 'a &lt;b> & c\n');
    assert.match(readFileSync(join(r, 'out', 'a.hocr'), 'utf8'), />&lt;b&gt;<\/span>/);
    // Written again: the same bytes, or other bytes over what it wrote itself (a page read again).
    store.assemble(DOC, 1, DEFAULT_DECODE_OPTIONS, { stem: 'a', json: false, hocr: true });
    rmSync(join(r, 'out', '.saccade-pages', 'k', '0.json'));
    store.put(0, { ...PAGE, recognised: [{ kind: 'text', lines: ['read again'] }] });
    store.assemble(DOC, 1, DEFAULT_DECODE_OPTIONS, { stem: 'a', json: false, hocr: true });
    assert.equal(readFileSync(join(r, 'out', 'a.md'), 'utf8'), 'read again\n');
    writeFileSync(join(r, 'out', 'a.md'), 'changed by someone\n');
    assert.throws(() => store.assemble(DOC, 1, DEFAULT_DECODE_OPTIONS, { stem: 'a', json: false, hocr: true }), /a\.md is there already and this batch did not write it/);
    assert.deepEqual(readdirSync(join(r, 'out')).sort(), ['.saccade-pages', 'a.hocr', 'a.md', 'mine.md'], 'no temporary file is left');
  } finally {
    store.close();
    folder.close();
  }
});

test('a page record is data: markup, paths, other pages and bad numbers are refused with one line', () => {
  assert.deepEqual(checkRecord(structuredClone(PAGE), 0), PAGE);
  const bad: Array<[(p: Record<string, unknown> & PageRecord) => void, RegExp]> = [
    [(p) => (p.recognised = [{ kind: 'table', lines: ['x'], table: { leads: ['<script>alert(1)</script><table><tr><td>'], tail: '</td></tr></table>' } }]), /region 1's table holds other markup than a table's tags/],
    [(p) => (p.recognised = [{ kind: 'figure', lines: [], image: '../../etc/passwd' }]), /region 1's image is not a figure of its page/],
    [(p) => (p.recognised = [{ kind: 'figure', lines: [], image: 'p2-figure1.png' }]), /region 1's image is not a figure of its page/],
    [(p) => (p.recognised = [{ kind: '<script>' as 'text', lines: [] }]), /region 1's kind is not a region kind/],
    [(p) => ((p as Record<string, unknown>).hocr = '<div><script>alert(1)</script></div>'), /its hOCR is not an object/],
    [(p) => (p.hocr.regions[0]!.box.x0 = Number.NaN), /hOCR region 1 is not a number/],
    [(p) => (p.info.index = 3), /its page is not page 1/],
    [(p) => (p.recognised[0]!.lines = ['x'.repeat(100_001)]), /region 1's line is not a string of at most 100000 characters/],
    [(p) => ((p as Record<string, unknown>).v = 1), /the record is not of version 2/],
  ];
  for (const [change, reason] of bad) {
    const p = structuredClone(PAGE) as Record<string, unknown> & PageRecord;
    change(p);
    assert.throws(() => checkRecord(JSON.parse(JSON.stringify(p)), 0), (err: Error) => err.message.startsWith('the kept page 1 is not a page record: ') && reason.test(err.message), String(reason));
  }
});
