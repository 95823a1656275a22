import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FixationFrame, TokenEvent } from '../../../../common/engine-types';
import type { Box } from '../../../../common/protocol';
import { regionWords } from './word-boxes';

function token(text: string, arProb: number, peak: number | null, frame?: FixationFrame): TokenEvent {
  return { type: 'token', regionId: 'r', index: 0, id: 5, text, round: 0, source: 'ar', draftConf: -1, arProb, decoderProb: -1, readProb: -1,
    fixation: peak === null ? null : { indices: [peak, 0], weights: [0.9, 0.1], ...(frame ? { frame } : {}) } };
}

test('words of line crops take their line\'s height and the span of their tokens\' fixation cells', () => {
  // Two line crops, each 1 x 10 cells of 10 px from x = 100.
  const line0: FixationFrame = { box: { x0: 100, y0: 50, x1: 200, y1: 70 }, rows: 1, cols: 10 };
  const line1: FixationFrame = { box: { x0: 100, y0: 80, x1: 200, y1: 100 }, rows: 1, cols: 10 };
  const lines = regionWords({ x0: 90, y0: 40, x1: 210, y1: 110 }, { rows: 1, cols: 4 }, [
    token('Net', 0.9, 1, line0), token(' sal', 0.8, 4, line0), token('es', 0.5, 5, line0),
    token(' 42', 0.6, 9, line1),
  ], false);
  assert.equal(lines.length, 2);
  assert.deepEqual(lines[0]!.words.map((w) => [w.text, w.box]), [
    ['Net', { x0: 110, y0: 50, x1: 120, y1: 70 }],
    ['sales', { x0: 140, y0: 50, x1: 160, y1: 70 }],
  ]);
  assert.equal(lines[0]!.words[1]!.confidence, 0.5, 'a word is as sure as its least sure token');
  assert.deepEqual(lines[0]!.box, { x0: 110, y0: 50, x1: 160, y1: 70 });
  assert.deepEqual(lines[1]!.words.map((w) => [w.text, w.box, w.confidence]), [['42', { x0: 190, y0: 80, x1: 200, y1: 100 }, 0.6]]);
});

test('where both readers read a line, a word is as sure as the chance that both read each of its tokens so', () => {
  const line: FixationFrame = { box: { x0: 100, y0: 50, x1: 200, y1: 70 }, rows: 1, cols: 10 };
  const voted = (text: string, decoderProb: number, readProb: number, peak: number): TokenEvent => ({ ...token(text, 0.97, peak, line), decoderProb, readProb });
  // "cat": the joint choice kept every token at 0.97, but the encoder's CTC head read "o" where the decoder wrote
  // "a" (0.4): 0.98 x 0.4. "sat": both readers sure of every token, its least 0.99 x 0.95.
  const [words] = regionWords(line.box, null, [voted('c', 0.99, 0.99, 1), voted('a', 0.98, 0.4, 2), voted('t', 0.99, 0.99, 3),
    voted(' s', 0.99, 0.95, 5), voted('at', 0.99, 0.99, 6)], false).map((l) => l.words);
  assert.deepEqual(words!.map((w) => [w.text, Math.round(w.confidence * 10000) / 10000]), [['cat', 0.392], ['sat', 0.9405]]);
});

test('a line of a page turned upside down or a quarter places its words along its own direction', () => {
  // The same line, 1 x 10 cells of 10 px along it and 20 px across, read from page x = 200 leftwards (turned
  // half) and from page y = 100 downwards (turned a quarter clockwise); its ink in two groups.
  const read = (frame: FixationFrame, ink: Box[]) => regionWords(frame.box, null, [token('Net', 0.9, 1, frame), token(' sales', 0.8, 5, frame)], false, () => ink);
  const upsideDown = read({ box: { x0: 100, y0: 50, x1: 200, y1: 70 }, rows: 1, cols: 10, angle: Math.PI }, [{ x0: 176, y0: 52, x1: 192, y1: 68 }, { x0: 128, y0: 52, x1: 161, y1: 68 }]);
  assert.deepEqual(upsideDown[0]!.words.map((w) => [w.text, w.box]), [
    ['Net', { x0: 176, y0: 52, x1: 192, y1: 68 }],
    ['sales', { x0: 128, y0: 52, x1: 161, y1: 68 }],
  ]);
  const quarter = read({ box: { x0: 50, y0: 100, x1: 70, y1: 200 }, rows: 1, cols: 10, angle: Math.PI / 2 }, [{ x0: 52, y0: 108, x1: 68, y1: 124 }, { x0: 52, y0: 139, x1: 68, y1: 172 }]);
  assert.deepEqual(quarter[0]!.words.map((w) => [w.text, w.box]), [
    ['Net', { x0: 52, y0: 108, x1: 68, y1: 124 }],
    ['sales', { x0: 52, y0: 139, x1: 68, y1: 172 }],
  ]);
  // Without ink, a word spans its fixation cells along the line: the second cell from the start is at the
  // page's right for the upside-down line.
  const bare = regionWords({ x0: 100, y0: 50, x1: 200, y1: 70 }, null, [token('Net', 0.9, 1, { box: { x0: 100, y0: 50, x1: 200, y1: 70 }, rows: 1, cols: 10, angle: Math.PI })], false);
  assert.deepEqual(bare[0]!.words[0]!.box, { x0: 180, y0: 50, x1: 190, y1: 70 });
});

test('a region read whole splits its lines at newlines and places words by row and column', () => {
  // The region's own 2 x 4 grid of 25 x 10 px cells.
  const lines = regionWords({ x0: 0, y0: 0, x1: 100, y1: 20 }, { rows: 2, cols: 4 }, [
    token('x', 1, 0), token(' = 1', 1, 3), token('\n', 1, 3), token('y', 1, 5),
  ], false);
  assert.deepEqual(lines.map((l) => l.words.map((w) => [w.text, w.box])), [
    [['x', { x0: 0, y0: 0, x1: 25, y1: 10 }], ['=', { x0: 75, y0: 0, x1: 100, y1: 10 }], ['1', { x0: 75, y0: 0, x1: 100, y1: 10 }]],
    [['y', { x0: 25, y0: 10, x1: 50, y1: 20 }]],
  ]);
});

test('table markup is not a word, entities are text, and words without fixation take their line', () => {
  const cell: FixationFrame = { box: { x0: 0, y0: 0, x1: 50, y1: 10 }, rows: 1, cols: 5 };
  const lines = regionWords({ x0: 0, y0: 0, x1: 100, y1: 40 }, null, [
    { ...token('<table><tr><td>A', 0.9, 0, cell) }, token('&amp;B', 0.9, 1, cell),
    { ...token('<td>C', 0.4, null) },
  ], true);
  assert.deepEqual(lines.map((l) => l.words.map((w) => w.text)), [['A&B'], ['C']]);
  assert.deepEqual(lines[1]!.words[0]!.box, { x0: 0, y0: 0, x1: 100, y1: 40 }, 'no frame, no fixation: the region');
});

test('words take the boxes of the ink they align with: trailing fixations, warm-up, noise, words run together', () => {
  // One line crop of 1 x 20 cells of 10 px; the tokens' fixation peaks trail their words by a cell or two.
  // The line's first token came in fixation's warm-up: no fixation, no frame; it belongs to the line after it.
  const frame: FixationFrame = { box: { x0: 0, y0: 0, x1: 200, y1: 20 }, rows: 1, cols: 20 };
  const tokens = [token('\nTo', 0.9, null), token('tal', 0.9, 3, frame), token(' due', 0.9, 6, frame), token(' now', 0.9, 9, frame),
    token(' 42', 0.9, 18, frame)];
  const ink = [
    { x0: 4, y0: 3, x1: 31, y1: 16 }, // Total
    { x0: 50, y0: 4, x1: 98, y1: 16 }, // "due now" run together
    { x0: 120, y0: 9, x1: 122, y1: 11 }, // a speck
    { x0: 160, y0: 4, x1: 176, y1: 16 }, // 42
  ];
  const [line] = regionWords({ x0: 0, y0: 0, x1: 200, y1: 20 }, null, tokens, false, (b) => (b.x1 === 200 ? ink : undefined));
  assert.deepEqual(line!.words.map((w) => [w.text, w.box]), [
    ['Total', { x0: 4, y0: 3, x1: 31, y1: 16 }],
    ['due', { x0: 50, y0: 4, x1: 74, y1: 16 }],
    ['now', { x0: 74, y0: 4, x1: 98, y1: 16 }],
    ['42', { x0: 160, y0: 4, x1: 176, y1: 16 }],
  ]);
  // Without ink the same words keep their fixation boxes.
  const [plain] = regionWords({ x0: 0, y0: 0, x1: 200, y1: 20 }, null, tokens, false);
  assert.deepEqual(plain!.words[0]!.box, { x0: 30, y0: 0, x1: 40, y1: 20 });
  // A word read entirely in the warm-up is placed by its order and width.
  const [early] = regionWords({ x0: 0, y0: 0, x1: 200, y1: 20 }, null, [token('\nTotal', 0.9, null), ...tokens.slice(2)], false,
    () => ink);
  assert.deepEqual(early!.words[0]!.box, { x0: 4, y0: 3, x1: 31, y1: 16 });
});

test('a check box\'s mark is one word, boxed where the box is', () => {
  const mark: FixationFrame = { box: { x0: 100, y0: 50, x1: 120, y1: 70 }, rows: 1, cols: 1 };
  const label: FixationFrame = { box: { x0: 125, y0: 45, x1: 225, y1: 75 }, rows: 1, cols: 10 };
  const lines = regionWords({ x0: 90, y0: 40, x1: 230, y1: 80 }, null, [token('[ ]', 1, 0, mark), token(' Yes', 0.9, 2, label)], false);
  assert.deepEqual(lines.flatMap((l) => l.words.map((w) => [w.text, w.box])), [
    ['[ ]', { x0: 100, y0: 50, x1: 120, y1: 70 }],
    ['Yes', { x0: 145, y0: 45, x1: 155, y1: 75 }],
  ]);
});

test('words the line encoder read alone say so; a word the decoder wrote any part of does not', () => {
  const line: FixationFrame = { box: { x0: 0, y0: 0, x1: 100, y1: 20 }, rows: 1, cols: 10 };
  const encoder = (text: string, peak: number): TokenEvent => ({ ...token(text, 0.97, peak, line), id: -1, source: 'encoder' });
  const [read] = regionWords(line.box, null, [encoder('東', 0), encoder('京', 1), token(' Tokyo', 0.9, 4, line), encoder('駅', 8)], false);
  assert.deepEqual(read!.words.map((w) => [w.text, w.readBy]), [['東京', 'encoder'], ['Tokyo駅', undefined]]);
});
