import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineEvent, RegionStats, TokenEvent } from '../../../../common/engine-types';
import { type DroppedReading, MIN_MEAN_LOG_PROB, ReadingChooser, readingLogProb } from './reading-choice';

function stats(forwards: number, tokens: number): RegionStats {
  return { tokens, forwards, rounds: tokens, encodeMs: 1, prefillMs: 2, decodeMs: 3, decodeShareMs: 3, attentionMs: 1, visualTokenFraction: 1, retractedTokens: 0,
    committed: tokens, arEstimateMs: 0 };
}

function tokens(regionId: string, text: string, probs: number[]): TokenEvent[] {
  return probs.map((arProb, index) => ({ type: 'token', regionId, index, id: 40 + index, text: text[index]!, round: index,
    source: 'ar', draftConf: -1, arProb, decoderProb: -1, readProb: -1, fixation: null }));
}

function reading(regionId: string, text: string, probs: number[], forwards: number): EngineEvent[] {
  return [
    { type: 'region_start', regionId, kind: 'text', grid: { rows: 2, cols: 4 }, imageTokens: 8 },
    ...tokens(regionId, text, probs),
    { type: 'region_end', regionId, text, stats: stats(forwards, probs.length) },
  ];
}

const crops = [
  { id: 'r/0', kind: 'text' as const, views: [{ id: 'r/0#0' }, { id: 'r/0#1' }] },
  { id: 'l/0', kind: 'text' as const, views: [{ id: 'l/0#0' }] },
  { id: 't/0', kind: 'table' as const, views: [{ id: 't/0#0' }] },
];

test('the first view streams live; the reading with the higher joint probability replaces it once every view has ended', () => {
  const out: EngineEvent[] = [];
  const chooser = new ReadingChooser(crops, (e) => out.push(...e), () => {});
  // "cat" at 0.9 x 0.5 x 0.9 = 0.405 against "cot" at 0.8 x 0.7 x 0.8 = 0.448: the second view wins.
  chooser.push(reading('r/0#0', 'cat', [0.9, 0.5, 0.9], 4));
  assert.deepEqual(out.map((e) => e.type), ['region_start', 'token', 'token', 'token'], 'streamed, its end held');
  chooser.push(reading('r/0#1', 'cot', [0.8, 0.7, 0.8], 5));
  assert.deepEqual(out.map((e) => e.regionId), Array(10).fill('r/0'));
  assert.deepEqual(out.slice(4).map((e) => e.type), ['retract', 'region_start', 'token', 'token', 'token', 'region_end']);
  assert.equal((out[4] as { index: number }).index, 0, 'the first reading is taken back whole');
  const replacement = out.slice(5).filter((e): e is TokenEvent => e.type === 'token');
  assert.equal(replacement.map((e) => e.text).join(''), 'cot');
  assert.deepEqual(replacement.map((e) => e.round), [3, 4, 5], 'its rounds follow the first view\'s');
  const end = out.at(-1)!;
  assert.ok(end.type === 'region_end');
  assert.equal(end.text, 'cot');
  // Tokens are the kept reading's; the cost is both views'.
  assert.deepEqual([end.stats.tokens, end.stats.forwards, end.stats.decodeMs, end.stats.prefillMs], [3, 9, 6, 4]);
  assert.equal(chooser.chosen.get('r/0'), 'r/0#1');
});

test('tokens the repetition guard took back do not count toward a reading', () => {
  const out: EngineEvent[] = [];
  const chooser = new ReadingChooser(crops, (e) => out.push(...e), () => {});
  // The first view's last two tokens were a loop, taken back: what is left ("ab", 0.6) beats "xy" (0.25).
  const first = reading('r/0#0', 'abab', [0.8, 0.75, 0.1, 0.1], 4);
  first.splice(5, 0, { type: 'retract', regionId: 'r/0#0', index: 2 });
  chooser.push(reading('r/0#1', 'xy', [0.5, 0.5], 2));
  chooser.push(first);
  assert.equal(chooser.chosen.get('r/0'), 'r/0#0');
  assert.ok(out.some((e) => e.type === 'retract' && e.regionId === 'r/0' && e.index === 2));
  assert.ok(Math.abs(readingLogProb([0.8, 0.75]) - Math.log(0.6)) < 1e-12);
});

test('an empty reading loses to one with text', () => {
  const out: EngineEvent[] = [];
  const chooser = new ReadingChooser(crops, (e) => out.push(...e), () => {});
  chooser.push([...reading('r/0#0', 'ab', [0.85, 0.8], 2), ...reading('r/0#1', '', [], 1)]);
  assert.equal(chooser.chosen.get('r/0'), 'r/0#0');
});

test('a line read with too little confidence keeps its place and reads as nothing', () => {
  const out: EngineEvent[] = [];
  const dropped: DroppedReading[] = [];
  const chooser = new ReadingChooser(crops, (e) => out.push(...e), (d) => dropped.push(d));
  // Mean log probability of (0.9, 0.6, 0.7) is -0.32: below the bar, so nothing of it is kept.
  assert.ok(readingLogProb([0.9, 0.6, 0.7]) / 3 < MIN_MEAN_LOG_PROB);
  chooser.push(reading('l/0#0', 'xyz', [0.9, 0.6, 0.7], 3));
  assert.deepEqual(out.map((e) => e.type), ['region_start', 'token', 'token', 'token', 'retract', 'region_end']);
  assert.equal(dropped.length, 1);
  assert.deepEqual([dropped[0]!.cropId, dropped[0]!.text], ['l/0', 'xyz']);
  assert.ok(Math.abs(dropped[0]!.meanProb - Math.cbrt(0.9 * 0.6 * 0.7)) < 1e-12);
  const end = out[5]!;
  assert.ok(end.type === 'region_end' && end.text === '' && end.stats.tokens === 0 && end.stats.forwards === 3);
  assert.equal(chooser.chosen.has('l/0'), false);
  // (0.9, 0.7, 0.9) averages -0.19 and is kept.
  out.length = 0;
  const again = new ReadingChooser(crops, (e) => out.push(...e), (d) => dropped.push(d));
  again.push(reading('l/0#0', 'xyz', [0.9, 0.7, 0.9], 3));
  assert.equal(out.filter((e) => e.type === 'token').length, 3);
  // Without a place to report them, unsure readings are kept.
  out.length = 0;
  const keeping = new ReadingChooser(crops, (e) => out.push(...e), null);
  keeping.push(reading('l/0#0', 'xyz', [0.9, 0.6, 0.7], 3));
  assert.equal(out.filter((e) => e.type === 'token').length, 3);
  assert.equal(dropped.length, 1);
});

test('a table read whole streams live and events of unknown ids are dropped', () => {
  const out: EngineEvent[] = [];
  const chooser = new ReadingChooser(crops, (e) => out.push(...e), () => {});
  chooser.push([...tokens('t/0#0', 'a', [0.3]), ...tokens('x/9#0', 'b', [1])]);
  assert.deepEqual(out.map((e) => [e.regionId, (e as TokenEvent).text]), [['t/0', 'a']]);
  assert.equal(chooser.chosen.get('t/0'), 't/0#0');
});

test('a sure first reading is kept at once; an unsure one waits for the other views, which awaiting() lists', () => {
  const out: EngineEvent[] = [];
  const two = [
    { id: 'a/0', kind: 'text' as const, views: [{ id: 'a/0#0' }, { id: 'a/0#1' }] },
    { id: 'b/0', kind: 'text' as const, views: [{ id: 'b/0#0' }, { id: 'b/0#1' }] },
  ];
  const chooser = new ReadingChooser(two, (e) => out.push(...e), () => {});
  assert.deepEqual(chooser.awaiting(), []);
  // a: mean log probability -0.07, sure; b: -0.22, not sure.
  chooser.push([...reading('a/0#0', 'ok', [0.95, 0.92], 2), ...reading('b/0#0', 'hm', [0.8, 0.8], 2)]);
  assert.equal(chooser.chosen.get('a/0'), 'a/0#0');
  assert.deepEqual(out.filter((e) => e.type === 'region_end').map((e) => e.regionId), ['a/0']);
  assert.deepEqual(chooser.awaiting(), ['b/0#1']);
  chooser.push(reading('b/0#1', 'hmm', [0.9, 0.9, 0.9], 3));
  assert.equal(chooser.chosen.get('b/0'), 'b/0#1');
  assert.deepEqual(out.filter((e) => e.regionId === 'b/0').map((e) => e.type === 'token' ? e.text : e.type),
    ['region_start', 'h', 'm', 'retract', 'region_start', 'h', 'm', 'm', 'region_end']);
  assert.deepEqual(chooser.awaiting(), []);
  // A late reading of a view no longer wanted changes nothing.
  const before = out.length;
  chooser.push(reading('a/0#1', 'no', [1, 1], 2));
  assert.equal(out.length, before);
});
