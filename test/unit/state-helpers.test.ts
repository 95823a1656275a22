import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RoundEvent } from '../../common/engine-types';
import { fixationCells, fixationCentre, mergeCells } from '../../renderer/src/document/fixation-geometry';
import { DEFAULT_SETTINGS, loadSettings, saveSettings, sanitizeSettings, toDecodeOptions } from '../../renderer/src/state/decode-settings';
import { exportName, regionPrefix, regionSuffix } from '../../renderer/src/state/markdown-layout';
import { roundSlots } from '../../renderer/src/state/round-slots';
import { memoryStorage } from '../support/memory-storage';

test('decode settings survive a round trip and invalid stored values fall back to defaults', () => {
  const storage = memoryStorage();
  saveSettings(storage, { mode: 'diffusion', blockSize: 16, tauC: 0.8, fixation: false, keepRatio: 0.2 });
  assert.deepEqual(loadSettings(storage), { mode: 'diffusion', blockSize: 16, tauC: 0.8, fixation: false, keepRatio: 0.2 });
  assert.deepEqual(sanitizeSettings({ mode: 'turbo', blockSize: 7, tauC: 3, fixation: 'yes', keepRatio: -1 }), DEFAULT_SETTINGS);
  storage.setItem('saccade.decodeSettings', '{not json');
  assert.deepEqual(loadSettings(storage), DEFAULT_SETTINGS);
  const options = toDecodeOptions({ ...DEFAULT_SETTINGS, fixation: false, keepRatio: 0.3, blockSize: 'auto' });
  assert.equal(options.fixation.enabled, false);
  assert.equal(options.fixation.keepRatio, 0.3);
  assert.equal(options.blockSize, 'auto');
});

test('round slots follow the verify-and-draft protocol', () => {
  const round = (guesses: number[], block: number[], committed: number[], drafter: RoundEvent['drafter'] = 'diffusion'): RoundEvent => {
    const draft = [...guesses, ...block];
    return {
      type: 'round', regionId: 'r', round: 0, blockSize: block.length, drafter, draft, draftConf: draft.map(() => 0.9),
      verify: [], accepted: 0, committed, forwards: 1, draftMs: 0, verifyMs: 1,
    };
  };
  const fates = (r: RoundEvent) => roundSlots(r).map((s) => `${s.fate}:${s.draft}:${s.committed}`);
  // Guesses 2 and 3 accepted, 9 corrected to 4; the rest of the guesses and the new block are discarded.
  assert.deepEqual(fates(round([2, 3, 9, 5], [6, 7], [2, 3, 4])),
    ['accepted:2:2', 'accepted:3:3', 'corrected:9:4', 'discarded:5:null', 'discarded:6:null', 'discarded:7:null']);
  // Every guess held: the verifier's own token sits in d_1's slot, d_2.. go on to the next round.
  assert.deepEqual(fates(round([2, 3], [9, 5, 6], [2, 3, 4])),
    ['accepted:2:2', 'accepted:3:3', 'free:9:4', 'carried:5:null', 'carried:6:null']);
  // A round without guesses commits the verifier's token and drafts a block.
  assert.deepEqual(fates(round([], [1, 5], [1])), ['free:1:1', 'carried:5:null']);
  // A plain AR step: no draft at all.
  assert.deepEqual(fates(round([], [], [8])), ['free:null:8']);
  // The MTP head drafts after the verifier's token: its drafts go on to the next round, mismatch or not.
  assert.deepEqual(fates(round([2, 3], [7, 8], [2, 3, 4], 'mtp')),
    ['accepted:2:2', 'accepted:3:3', 'free:null:4', 'carried:7:null', 'carried:8:null']);
  assert.deepEqual(fates(round([2, 9, 5], [6], [2, 4], 'mtp')),
    ['accepted:2:2', 'corrected:9:4', 'discarded:5:null', 'carried:6:null']);
});

test('fixation cells map the merged grid onto the region box', () => {
  const box = { x0: 100, y0: 200, x1: 300, y1: 300 };
  const grid = { rows: 2, cols: 4 };
  const cells = fixationCells(box, grid, { indices: [5, 0, 99], weights: [0.75, 0.25, 0] });
  assert.deepEqual(cells, [{ x: 150, y: 250, w: 50, h: 50, weight: 0.75 }, { x: 100, y: 200, w: 50, h: 50, weight: 0.25 }]);
  const c = fixationCentre(box, grid, { indices: [5, 0], weights: [0.75, 0.25] })!;
  assert.deepEqual(c, { x: 0.75 * 175 + 0.25 * 125, y: 0.75 * 275 + 0.25 * 225 });
  const merged = mergeCells([cells, cells.slice(0, 1)]);
  assert.equal(merged.find((m) => m.x === 150)!.weight, 1);
  assert.equal(merged.find((m) => m.x === 100)!.weight, 0.25 / 1.5);
});

test('a fixation with its own frame (one line of a multi-line region) lands on that line, not on the region', () => {
  const region = { x0: 0, y0: 0, x1: 400, y1: 300 };
  const line = { box: { x0: 20, y0: 100, x1: 220, y1: 132 }, rows: 1, cols: 4 };
  const cells = fixationCells(region, { rows: 1, cols: 4 }, { indices: [2], weights: [1], frame: line });
  assert.deepEqual(cells, [{ x: 120, y: 100, w: 50, h: 32, weight: 1 }]);
});

test('a fixation on a line of a turned page lands along that line: from its right end upside down, downwards a quarter turned', () => {
  const region = { x0: 0, y0: 0, x1: 400, y1: 300 };
  const across = { x0: 20, y0: 100, x1: 220, y1: 132 };
  const upsideDown = fixationCells(region, { rows: 1, cols: 4 }, { indices: [0], weights: [1], frame: { box: across, rows: 1, cols: 4, angle: Math.PI } });
  assert.deepEqual(upsideDown, [{ x: 170, y: 100, w: 50, h: 32, weight: 1 }]);
  const down = { x0: 100, y0: 20, x1: 132, y1: 220 };
  const quarter = fixationCells(region, { rows: 1, cols: 4 }, { indices: [1], weights: [1], frame: { box: down, rows: 1, cols: 4, angle: Math.PI / 2 } });
  assert.deepEqual(quarter, [{ x: 100, y: 70, w: 32, h: 50, weight: 1 }]);
});

test('regions sit in the Markdown as headings, paragraphs and display math', () => {
  assert.equal(regionPrefix('title', true), '# ');
  assert.equal(regionPrefix('text', false), '\n\n');
  assert.equal(regionPrefix('formula', false) + 'x' + regionSuffix('formula'), '\n\n$$\nx\n$$');
  assert.equal(exportName('two-page-report.pdf'), 'two-page-report.md');
  assert.equal(exportName('.png'), 'document.md');
});
