import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineEvent, TokenEvent } from '../../../../common/engine-types';
import { EventRelay } from './event-relay';
import { tableMarkup } from '../write/table-markup';

const stats = { tokens: 1, forwards: 1, rounds: 0, encodeMs: 0, prefillMs: 0, decodeMs: 0, decodeShareMs: 0, attentionMs: 0, visualTokenFraction: 1, retractedTokens: 0, committed: 1, arEstimateMs: 0 };

function token(regionId: string, text: string): TokenEvent {
  return { type: 'token', regionId, index: 0, id: 70, text, round: 0, source: 'ar', draftConf: -1, arProb: 0.9, decoderProb: -1, readProb: -1,
    fixation: { indices: [1], weights: [1] } };
}

/** A crop's region_start over a one-row grid of `cols` image tokens. */
function start(regionId: string, cols = 3): EngineEvent {
  return { type: 'region_start', regionId, kind: 'text', grid: { rows: 1, cols }, imageTokens: cols };
}

/** A crop read as one token, start to end. */
function readAs(regionId: string, text: string, cols = 3): EngineEvent[] {
  return [start(regionId, cols), token(regionId, text), { type: 'region_end', regionId, text, stats }];
}

test('line crops of one region stream as that region, each fixation framed by its own line', () => {
  const lines = [{ x0: 10, y0: 10, x1: 210, y1: 42 }, { x0: 10, y0: 50, x1: 110, y1: 82 }];
  const out: EngineEvent[] = [];
  const relay = new EventRelay(
    lines.map((box, line) => ({ id: `r/${line}`, kind: 'text' as const, regionId: 'r', line, box, angle: 0 })),
    new Map(), (events) => out.push(...events), () => {}, () => {},
  );
  // The second line's events arrive first; they are held until the first line ends.
  relay.push([
    ...readAs('r/1', 'b'),
    ...readAs('r/0', 'a', 6),
  ]);
  const tokens = out.filter((e): e is TokenEvent => e.type === 'token');
  assert.deepEqual(tokens.map((t) => [t.regionId, t.index, t.text]), [['r', 0, 'a'], ['r', 1, ' b']]);
  assert.deepEqual(tokens.map((t) => t.fixation?.frame), [{ box: lines[0], rows: 1, cols: 6, angle: 0 }, { box: lines[1], rows: 1, cols: 3, angle: 0 }]);
  assert.deepEqual(out.filter((e) => e.type === 'region_start').map((e) => e.regionId), ['r']);
  const end = out.find((e) => e.type === 'region_end');
  assert.equal(end?.type === 'region_end' && end.text, 'a b');
});

test('a line whose loop was taken back shifts the next line to the kept length', () => {
  const out: EngineEvent[] = [];
  const relay = new EventRelay(
    [0, 1].map((line) => ({ id: `r/${line}`, kind: 'text' as const, regionId: 'r', line, box: { x0: 0, y0: 40 * line, x1: 100, y1: 40 * line + 30 }, angle: 0 })),
    new Map(), (events) => out.push(...events), () => {}, () => {},
  );
  const at = (t: TokenEvent, index: number): TokenEvent => ({ ...t, index });
  relay.push([
    start('r/0'),
    at(token('r/0', 'a'), 0), at(token('r/0', 'b'), 1), at(token('r/0', 'b'), 2),
    { type: 'retract', regionId: 'r/0', index: 2 },
    { type: 'region_end', regionId: 'r/0', text: 'ab', stats: { ...stats, tokens: 2, retractedTokens: 1 } },
    start('r/1'),
    at(token('r/1', 'c'), 0),
    { type: 'region_end', regionId: 'r/1', text: 'c', stats },
  ]);
  assert.deepEqual(out.filter((e) => e.type === 'retract').map((e) => e.type === 'retract' && e.index), [2]);
  const last = out.filter((e): e is TokenEvent => e.type === 'token').at(-1);
  assert.deepEqual([last?.index, last?.text], [2, ' c']);
  const end = out.find((e) => e.type === 'region_end');
  assert.ok(end?.type === 'region_end' && end.text === 'ab c' && end.stats.retractedTokens === 1);
});

test('a table read by cells streams as HTML: markup rides on each cell\'s first token, the rest in the tail', () => {
  // Row 0: "A" in column 0, column 1 empty; row 1: "1 & 2" spanning both columns, then a cell that reads as nothing.
  const grid = { rows: 2, cols: 2, cells: [
    { row: 0, col: 0, colSpan: 1, lines: [{ x0: 0, y0: 0, x1: 10, y1: 10 }] },
    { row: 1, col: 0, colSpan: 2, lines: [{ x0: 0, y0: 20, x1: 50, y1: 30 }] },
  ] };
  const out: EngineEvent[] = [];
  const done: string[] = [];
  const relay = new EventRelay(
    grid.cells.map((c, line) => ({ id: `t/${line}`, kind: 'text' as const, regionId: 't', line, box: c.lines[0]!, angle: 0 })),
    new Map([['t', tableMarkup(grid)]]), (events) => out.push(...events), (r) => done.push(r.text), () => {},
  );
  relay.push([
    ...readAs('t/0', 'A', 1),
    ...readAs('t/1', '1 & 2'),
  ]);
  const html = '<table><thead><tr><td>A</td><td></td></tr></thead><tbody><tr><td colspan="2">1 &amp; 2</td></tr></tbody></table>';
  const end = out.find((e) => e.type === 'region_end');
  assert.ok(end?.type === 'region_end');
  const streamed = out.filter((e): e is TokenEvent => e.type === 'token').map((t) => t.text).join('') + (end.tail ?? '');
  assert.equal(streamed, html);
  assert.equal(end.text, html);
  assert.deepEqual(done, [html]);
});

test('a table cell of several lines joins its read lines by one space and skips the ones read as nothing', () => {
  // One row: "Net", (nothing), "sales" in column 0; (nothing), "42" in column 1.
  const box = (x: number, y: number) => ({ x0: x, y0: y, x1: x + 30, y1: y + 10 });
  const grid = { rows: 1, cols: 2, cells: [
    { row: 0, col: 0, colSpan: 1, lines: [box(0, 0), box(0, 12), box(0, 24)] },
    { row: 0, col: 1, colSpan: 1, lines: [box(60, 0), box(60, 12)] },
  ] };
  const texts = ['Net', '', 'sales', '', '42'];
  const crops = grid.cells.flatMap((c) => c.lines).map((b, line) => ({ id: `t/${line}`, kind: 'text' as const, regionId: 't', line, box: b, angle: 0 }));
  const out: EngineEvent[] = [];
  const relay = new EventRelay(crops, new Map([['t', tableMarkup(grid)]]), (events) => out.push(...events), () => {}, () => {});
  relay.push(texts.flatMap((text, line): EngineEvent[] => [
    start(`t/${line}`, 2),
    ...(text ? [token(`t/${line}`, text)] : []),
    { type: 'region_end', regionId: `t/${line}`, text, stats: { ...stats, tokens: text ? 1 : 0 } },
  ]));
  const html = '<table><thead><tr><td>Net sales</td><td>42</td></tr></thead></table>';
  const end = out.find((e) => e.type === 'region_end');
  assert.ok(end?.type === 'region_end');
  assert.equal(out.filter((e): e is TokenEvent => e.type === 'token').map((t) => t.text).join('') + (end.tail ?? ''), html);
  assert.equal(end.text, html);
});

/** The region's text as a viewer of the stream sees it: tokens placed by index, retracts cutting the end. */
function seen(out: EngineEvent[]): string {
  const texts: string[] = [];
  for (const e of out) {
    if (e.type === 'token') texts[e.index] = e.text;
    if (e.type === 'retract') texts.length = e.index;
  }
  const end = out.find((e) => e.type === 'region_end');
  return texts.join('') + (end?.type === 'region_end' ? end.tail ?? '' : '');
}

test('a line taken back whole and read again keeps its lead, its region_start is not repeated, and its fixations follow the new crop', () => {
  const lines = [{ x0: 0, y0: 0, x1: 100, y1: 30 }, { x0: 0, y0: 40, x1: 100, y1: 70 }];
  const out: EngineEvent[] = [];
  const relay = new EventRelay(lines.map((box, line) => ({ id: `r/${line}`, kind: 'text' as const, regionId: 'r', line, box, angle: 0 })),
    new Map(), (events) => out.push(...events), () => {}, () => {});
  relay.push([
    ...readAs('r/0', 'a'),
    start('r/1'),
    token('r/1', 'x'),
    { type: 'retract', regionId: 'r/1', index: 0 },
    { type: 'region_start', regionId: 'r/1', kind: 'text', grid: { rows: 2, cols: 5 }, imageTokens: 10 },
    token('r/1', 'b'),
    { type: 'region_end', regionId: 'r/1', text: 'b', stats },
  ]);
  assert.deepEqual(out.filter((e) => e.type === 'region_start').length, 1);
  const tokens = out.filter((e): e is TokenEvent => e.type === 'token');
  assert.deepEqual(tokens.map((t) => [t.index, t.text]), [[0, 'a'], [1, ' x'], [1, ' b']]);
  assert.deepEqual(tokens.at(-1)!.fixation?.frame, { box: lines[1], rows: 2, cols: 5, angle: 0 });
  assert.equal(seen(out), 'a b');
  const end = out.find((e) => e.type === 'region_end');
  assert.ok(end?.type === 'region_end' && end.text === 'a b');
});

test('a table cell taken back whole gives its markup to the reading that replaces it, or to the next cell', () => {
  const grid = { rows: 1, cols: 3, cells: [0, 1, 2].map((col) => ({ row: 0, col, colSpan: 1, lines: [{ x0: 40 * col, y0: 0, x1: 40 * col + 30, y1: 10 }] })) };
  const out: EngineEvent[] = [];
  const relay = new EventRelay(grid.cells.map((c, line) => ({ id: `t/${line}`, kind: 'text' as const, regionId: 't', line, box: c.lines[0]!, angle: 0 })),
    new Map([['t', tableMarkup(grid)]]), (events) => out.push(...events), () => {}, () => {});
  relay.push([
    ...readAs('t/0', 'A', 2),
    // Replaced by another view's reading.
    start('t/1', 2), token('t/1', 'x'), { type: 'retract', regionId: 't/1', index: 0 }, start('t/1', 2), token('t/1', 'B'),
    { type: 'region_end', regionId: 't/1', text: 'B', stats },
    // Dropped: the cell reads as nothing.
    start('t/2', 2), token('t/2', 'y'), { type: 'retract', regionId: 't/2', index: 0 },
    { type: 'region_end', regionId: 't/2', text: '', stats: { ...stats, tokens: 0 } },
  ]);
  const html = '<table><thead><tr><td>A</td><td>B</td><td></td></tr></thead></table>';
  const end = out.find((e) => e.type === 'region_end');
  assert.ok(end?.type === 'region_end' && end.text === html);
  assert.equal(seen(out), html);
});

test('prose that looks like HTML streams escaped, as the Markdown writes it; a table keeps its own markup', () => {
  const out: EngineEvent[] = [];
  const done: string[] = [];
  const relay = new EventRelay([{ id: 'r/0', kind: 'text', regionId: 'r', line: 0, box: { x0: 0, y0: 0, x1: 100, y1: 30 }, angle: 0 }],
    new Map(), (events) => out.push(...events), (r) => done.push(r.text), () => {});
  relay.push([
    start('r/0'),
    token('r/0', '<script>'), { ...token('r/0', 'alert(1)</script>'), index: 1 },
    { type: 'region_end', regionId: 'r/0', text: '<script>alert(1)</script>', stats: { ...stats, tokens: 2 } },
  ]);
  assert.equal(seen(out), '&lt;script>alert(1)&lt;/script>');
  assert.deepEqual(done, ['&lt;script>alert(1)&lt;/script>']);
});
