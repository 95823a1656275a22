// Are the heatmaps honest? For each committed token of a synthetic text region, while the output still equals
// the ground truth, the fixation peak (an image-token cell of the merged grid) is checked against the box of
// the word being written. A cell is 32 px of the resized crop, so the word box is widened by half a cell on
// each side: the test is whether the peak cell is the word's cell, not a sub-cell position.
import type { TokenEvent } from '../../../common/engine-types';
import type { BenchRegion } from './bench-regions';

export interface HitCount {
  hits: number;
  total: number;
}

export function fixationHits(region: BenchRegion, grid: { rows: number; cols: number }, tokens: TokenEvent[]): HitCount {
  const { width, height } = region.input;
  const cellW = width / grid.cols;
  const cellH = height / grid.rows;
  const wordStarts = wordOffsets(region.target);
  let text = '';
  let hits = 0;
  let total = 0;
  for (const t of tokens) {
    const start = text.length;
    text += t.text;
    if (!region.target.startsWith(text)) break;
    const peak = t.fixation?.indices[0];
    const word = wordAt(wordStarts, start, t.text);
    if (peak === undefined || word === null || !region.words[word]) continue;
    const box = region.words[word]!;
    const cx = ((peak % grid.cols) + 0.5) * cellW;
    const cy = (Math.floor(peak / grid.cols) + 0.5) * cellH;
    total++;
    if (cx >= box.x0 - cellW / 2 && cx <= box.x1 + cellW / 2 && cy >= box.y0 - cellH / 2 && cy <= box.y1 + cellH / 2) hits++;
  }
  return { hits, total };
}

/** Start offset of each whitespace-separated word, in target order (the order of region.words). */
function wordOffsets(target: string): number[] {
  const out: number[] = [];
  for (const m of target.matchAll(/\S+/g)) out.push(m.index!);
  return out;
}

/** Index of the word containing the first non-space character of a token starting at `offset`. */
function wordAt(starts: number[], offset: number, tokenText: string): number | null {
  const lead = tokenText.length - tokenText.trimStart().length;
  if (lead === tokenText.length) return null;
  const pos = offset + lead;
  let word = -1;
  for (let i = 0; i < starts.length && starts[i]! <= pos; i++) word = i;
  return word >= 0 ? word : null;
}
