// Check boxes as marks in the text: a line cut at its boxes (pure), and a drawn form read end to end by the real
// page networks and line model, its marks in the Markdown (prose and a table's cells) and in the token stream
// the editor shows.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEFAULT_DECODE_OPTIONS, type EngineEvent } from '../../../../common/engine-types';
import type { SessionEvent } from '../../../../common/protocol';
import { defaultModelDir, loadAddon, type NativeModel } from '../../engine/native-addon';
import { decodeDocument, openDocument } from '../index';
import { withCheckBoxes, type CheckBoxCandidate } from './check-box-marks';
import type { PageCrop } from './page-crop';
import { renderTable } from '../write/table-markup';

const FORM = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'pages', 'form-check-boxes.png');

/** A level line 400 x 40 pixels at (100, 100), seen in one view 480 x 48 whose column x holds the value x. */
function lineCrop(id: string, regionId: string, line: number, inkWords: PageCrop['inkWords']): PageCrop {
  const width = 480;
  const pixels = new Uint8Array(width * 48);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i % width) & 0xff;
  return { id, kind: 'text', regionId, line, box: { x0: 100, y0: 100, x1: 500, y1: 140 }, angle: 0, inkWords,
    views: [{ id: `${id}#0`, kind: 'text', width, height: 48, pixels }] };
}

function candidate(cropId: string, x0: number, x1: number, mark: '[ ]' | '[x]'): CheckBoxCandidate {
  return { id: `${cropId}~box`, cropId, box: { x0, y0: 108, x1, y1: 132 }, mark, span: [(x0 - 100) / 400, (x1 - 100) / 400],
    line: { box: { cx: 300, cy: 120, width: 400, height: 40, angle: 0 }, angle: 0 },
    view: { id: `${cropId}~box#0`, kind: 'text', width: 8, height: 48, pixels: new Uint8Array(8 * 48) } };
}

test('a line is cut at its box: the text either side a piece of its view, the box a mark, lines numbered again', () => {
  const words = [{ x0: 110, y0: 110, x1: 180, y1: 130 }, { x0: 300, y0: 110, x1: 480, y1: 130 }];
  const crops = [lineCrop('r0/0', 'r0', 0, words), lineCrop('r0/1', 'r0', 1, words), lineCrop('r1/0', 'r1', 0, words)];
  const { crops: out } = withCheckBoxes(crops, [candidate('r0/0', 220, 244, '[x]')], new Map());
  assert.deepEqual(out.map((c) => [c.id, c.regionId, c.line, c.checkBox ?? null]), [
    ['r0/0.0', 'r0', 0, null], ['r0/0.1', 'r0', 1, '[x]'], ['r0/0.2', 'r0', 2, null], ['r0/1', 'r0', 3, null], ['r1/0', 'r1', 0, null],
  ]);
  const [left, mark, right] = out;
  // The box spans columns 144-173 of the view; the pieces stop 15% of its width short of it, and are padded
  // with paper to whole encoder columns.
  assert.equal(left!.views[0]!.width, 144);
  assert.equal(left!.views[0]!.pixels[0], 0);
  assert.equal(left!.views[0]!.pixels[138], 138);
  assert.equal(left!.views[0]!.pixels[139], 255);
  assert.equal(right!.views[0]!.width, 304);
  assert.equal(right!.views[0]!.pixels[0], 178);
  assert.deepEqual(left!.inkWords, [words[0]]);
  assert.deepEqual(right!.inkWords, [words[1]]);
  assert.deepEqual(right!.box, { x0: 248, y0: 100, x1: 500, y1: 140 });
  assert.deepEqual(mark!.views, []);
  assert.deepEqual(mark!.box, { x0: 220, y0: 108, x1: 244, y1: 132 });
});

test('a box beside a line keeps the line whole and adds its mark; a piece with no ink is left out', () => {
  const words = [{ x0: 130, y0: 110, x1: 480, y1: 130 }];
  const { crops: before } = withCheckBoxes([lineCrop('r0/0', 'r0', 0, words)], [candidate('r0/0', 60, 84, '[ ]')], new Map());
  assert.deepEqual(before.map((c) => [c.id, c.checkBox ?? null]), [['r0/0.0', '[ ]'], ['r0/0', null]]);
  assert.equal(before[1]!.views[0]!.width, 480);
  const { crops: blank } = withCheckBoxes([lineCrop('r0/0', 'r0', 0, [])], [candidate('r0/0', 220, 244, '[ ]')], new Map());
  assert.deepEqual(blank.map((c) => c.checkBox ?? null), ['[ ]']);
});

test('in a table read by cells, the pieces of a cell\'s line are later lines of that cell', () => {
  const words = [{ x0: 110, y0: 110, x1: 180, y1: 130 }, { x0: 300, y0: 110, x1: 480, y1: 130 }];
  const crops = [lineCrop('t/0', 't', 0, words), lineCrop('t/1', 't', 1, words), lineCrop('t/2', 't', 2, words)];
  const table = { leads: ['<table><tr><td>', null, '</td><td>'], tail: '</td></tr></table>' };
  const { crops: out, tables } = withCheckBoxes(crops, [candidate('t/1', 220, 244, '[ ]')], new Map([['t', table]]));
  assert.deepEqual(out.map((c) => [c.id, c.line]), [['t/0', 0], ['t/1.0', 1], ['t/1.1', 2], ['t/1.2', 3], ['t/2', 4]]);
  assert.deepEqual(tables.get('t'), { leads: ['<table><tr><td>', null, null, null, '</td><td>'], tail: table.tail });
  assert.equal(renderTable(tables.get('t')!, ['Paid', 'by', '[ ]', 'cheque', 'Cash']), '<table><tr><td>Paid by [ ] cheque</td><td>Cash</td></tr></table>');
});

let model: NativeModel | null = null;
after(() => model?.close());

test('a form read end to end: its boxes are marks in the Markdown and in the stream, and box-sized letters stay letters', async () => {
  model = await loadAddon().loadModel(defaultModelDir(), { threads: 2 });
  const doc = await openDocument('form.png', new Uint8Array(readFileSync(FORM)));
  const events: SessionEvent[] = [];
  let markdown = '';
  try {
    await decodeDocument(doc, model, {
      options: DEFAULT_DECODE_OPTIONS, pages: null, emit: (e) => events.push(...e), onPage: (p) => void (markdown += p.markdown),
      signal: new AbortController().signal,
    });
  } finally {
    doc.close();
  }
  assert.match(markdown, /\[ \] Purchasing\b/);
  assert.match(markdown, /\[x\] Stationery\b/);
  assert.match(markdown, /Approved by the committee \[x\]/);
  assert.match(markdown, /Paid \[ \] Yes \[x\] No/);
  assert.match(markdown, /Summon the common men and women in the morning; the minutes remain\./);
  // Boxes in a ruled table's cells are their cells' text.
  assert.match(markdown, /<tr><td>Signed<\/td><td>\[x\]<\/td><td>\[ \]<\/td><\/tr><tr><td>Paid<\/td><td>\[ \]<\/td><td>\[x\]<\/td><\/tr>/);
  assert.equal((markdown.match(/\[[ x]\]/g) ?? []).length, 9);
  // The editor shows each region's tokens as they stream: they add up to its text (a table's with its closing
  // tags), marks included, and each mark's fixation is its box.
  const engine = events.filter((e): e is EngineEvent => e.type === 'token' || e.type === 'region_end' || e.type === 'retract');
  const ends = engine.filter((e) => e.type === 'region_end');
  for (const end of ends) {
    const tokens: string[] = [];
    for (const e of engine.filter((x) => x.regionId === end.regionId)) {
      if (e.type === 'token') tokens[e.index] = e.text;
      if (e.type === 'retract') tokens.length = e.index;
    }
    assert.equal(tokens.join('') + (end.type === 'region_end' ? end.tail ?? '' : ''), end.text, end.regionId);
  }
  const marks = engine.filter((e) => e.type === 'token' && /\[[ x]\]$/.test(e.text));
  assert.equal(marks.length, 9);
  for (const m of marks) {
    const frame = m.type === 'token' ? m.fixation?.frame : undefined;
    assert.ok(frame && frame.rows === 1 && frame.cols === 1 && frame.box.x1 - frame.box.x0 >= 20 && frame.box.x1 - frame.box.x0 <= 30, JSON.stringify(frame));
  }
});
