import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineEvent, TokenEvent } from '../../../common/engine-types';
import { EventRelay } from './event-relay';

const stats = { tokens: 1, forwards: 1, rounds: 0, encodeMs: 0, prefillMs: 0, decodeMs: 0, attentionMs: 0, visualTokenFraction: 1 };

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
