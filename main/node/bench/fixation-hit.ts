// Are the heatmaps honest? For each committed token of a synthetic text region that belongs to a word read
// exactly right, the fixation peak (an image-token cell of the merged grid) is checked against the box of
// that word on the image. Output and ground-truth words are matched by their longest common subsequence, so
// a misread word does not end the count: the words read right after it still say where the model looked.
// A cell is one image token's patch, so the word box is widened by half a cell on each side: the test is
// whether the peak cell is the word's cell, not a sub-cell position.
import type { TokenEvent } from '../../../common/engine-types';
import type { BenchRegion } from './bench-regions';

export interface HitCount {
  hits: number;
  total: number;
}

interface Word {
  text: string;
  start: number;
  end: number;
}

function words(text: string): Word[] {
  return [...text.matchAll(/\S+/g)].map((m) => ({ text: m[0], start: m.index!, end: m.index! + m[0].length }));
}

/** Pairs [output word, truth word] of a longest common subsequence of equal words, in order. */
export function matchWords(output: readonly string[], truth: readonly string[]): Array<[number, number]> {
  const n = output.length, m = truth.length;
  const len = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i]![j] = output[i] === truth[j] ? len[i + 1]![j + 1]! + 1 : Math.max(len[i + 1]![j]!, len[i]![j + 1]!);
    }
  }
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (output[i] === truth[j]) pairs.push([i++, j++]);
    else if (len[i + 1]![j]! >= len[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

export function fixationHits(region: BenchRegion, grid: { rows: number; cols: number }, tokens: TokenEvent[]): HitCount {
  const { width, height } = region.input;
  const cellW = width / grid.cols;
  const cellH = height / grid.rows;
  const starts: number[] = [];
  let text = '';
  for (const t of tokens) {
    starts.push(text.length);
    text += t.text;
  }
  const out = words(text);
  // region.words follows the target's words in order.
  const truth = words(region.target);
  const boxOf = new Map<number, BenchRegion['words'][number]>();
  for (const [i, j] of matchWords(out.map((w) => w.text), truth.map((w) => w.text))) {
    const box = region.words[j];
    if (box) boxOf.set(i, box);
  }
  let hits = 0;
  let total = 0;
  let w = 0;
  tokens.forEach((t, k) => {
    const lead = t.text.length - t.text.trimStart().length;
    if (lead === t.text.length) return;
    const pos = starts[k]! + lead;  // the token's first visible character
    while (w < out.length && out[w]!.end <= pos) w++;
    const box = boxOf.get(w);
    const peak = t.fixation?.indices[0];
    if (!box || peak === undefined || pos < out[w]!.start) return;
    const cx = ((peak % grid.cols) + 0.5) * cellW;
    const cy = (Math.floor(peak / grid.cols) + 0.5) * cellH;
    total++;
    if (cx >= box.x0 - cellW / 2 && cx <= box.x1 + cellW / 2 && cy >= box.y0 - cellH / 2 && cy <= box.y1 + cellH / 2) hits++;
  });
  return { hits, total };
}
