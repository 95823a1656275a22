import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineEvent, TokenEvent } from '../../../common/engine-types';
import { EventRelay } from './event-relay';

const stats = { tokens: 1, forwards: 1, rounds: 0, encodeMs: 0, prefillMs: 0, decodeMs: 0, attentionMs: 0, visualTokenFraction: 1, retractedTokens: 0 };

function token(regionId: string, text: string): TokenEvent {
  return { type: 'token', regionId, index: 0, id: 70, text, round: 0, source: 'ar', draftConf: -1, arProb: 0.9,
    fixation: { indices: [1], weights: [1] } };
}

test('line crops of one region stream as that region, each fixation framed by its own line', () => {
  const lines = [{ x0: 10, y0: 10, x1: 210, y1: 42 }, { x0: 10, y0: 50, x1: 110, y1: 82 }];
  const out: EngineEvent[] = [];
  const relay = new EventRelay(
    lines.map((box, line) => ({ input: { id: `r/${line}` }, regionId: 'r', line, box })),
    (events) => out.push(...events), () => {}, () => {},
  );
  // The second line's events arrive first; they are held until the first line ends.
  relay.push([
    { type: 'region_start', regionId: 'r/1', kind: 'text', grid: { rows: 1, cols: 3 }, imageTokens: 3 },
    token('r/1', 'b'),
    { type: 'region_end', regionId: 'r/1', text: 'b', stats },
    { type: 'region_start', regionId: 'r/0', kind: 'text', grid: { rows: 1, cols: 6 }, imageTokens: 6 },
    token('r/0', 'a'),
    { type: 'region_end', regionId: 'r/0', text: 'a', stats },
  ]);
  const tokens = out.filter((e): e is TokenEvent => e.type === 'token');
  assert.deepEqual(tokens.map((t) => [t.regionId, t.index, t.text]), [['r', 0, 'a'], ['r', 1, ' b']]);
  assert.deepEqual(tokens.map((t) => t.fixation?.frame), [{ box: lines[0], rows: 1, cols: 6 }, { box: lines[1], rows: 1, cols: 3 }]);
  assert.deepEqual(out.filter((e) => e.type === 'region_start').map((e) => e.regionId), ['r']);
  const end = out.find((e) => e.type === 'region_end');
  assert.equal(end?.type === 'region_end' && end.text, 'a b');
});

test('a line whose loop was taken back shifts the next line to the kept length', () => {
  const out: EngineEvent[] = [];
  const relay = new EventRelay(
    [0, 1].map((line) => ({ input: { id: `r/${line}` }, regionId: 'r', line, box: { x0: 0, y0: 40 * line, x1: 100, y1: 40 * line + 30 } })),
    (events) => out.push(...events), () => {}, () => {},
  );
  const at = (t: TokenEvent, index: number): TokenEvent => ({ ...t, index });
  relay.push([
    { type: 'region_start', regionId: 'r/0', kind: 'text', grid: { rows: 1, cols: 3 }, imageTokens: 3 },
    at(token('r/0', 'a'), 0), at(token('r/0', 'b'), 1), at(token('r/0', 'b'), 2),
    { type: 'retract', regionId: 'r/0', index: 2 },
    { type: 'region_end', regionId: 'r/0', text: 'ab', stats: { ...stats, tokens: 2, retractedTokens: 1 } },
    { type: 'region_start', regionId: 'r/1', kind: 'text', grid: { rows: 1, cols: 3 }, imageTokens: 3 },
    at(token('r/1', 'c'), 0),
    { type: 'region_end', regionId: 'r/1', text: 'c', stats },
  ]);
  assert.deepEqual(out.filter((e) => e.type === 'retract').map((e) => e.type === 'retract' && e.index), [2]);
  const last = out.filter((e): e is TokenEvent => e.type === 'token').at(-1);
  assert.deepEqual([last?.index, last?.text], [2, ' c']);
  const end = out.find((e) => e.type === 'region_end');
  assert.ok(end?.type === 'region_end' && end.text === 'ab c' && end.stats.retractedTokens === 1);
});
