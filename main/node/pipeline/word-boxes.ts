// Where each word sits on the page, and how sure the model was of it, from what the engine streamed: every
// token's fixation peak is the image cell the model looked at while writing it (the benchmark's heatmap hit
// rate measures how often that is the cell of the word being written), and its verifier probability is its
// confidence. A word's box spans the cells of its tokens' peaks, widened by half a cell and kept inside its
// line; a word with no fixation gets its whole line. Lines are the line crops the page was read in (a
// token's fixation frame), or, for a region read whole, its text lines split at newlines.
import type { TokenEvent } from '../../../common/engine-types';
import type { Box } from '../../../common/protocol';
import { unescapeHtml } from './table-markup';

export interface WordBox {
  text: string;
  box: Box;
  /** Geometric mean of the verifier probabilities of the tokens that wrote it. */
  confidence: number;
}

export interface LineBox {
  box: Box;
  words: WordBox[];
}

interface Frame {
  box: Box;
  rows: number;
  cols: number;
}

interface Building {
  frame: Frame | null;
  /** The frame is a line crop's (one line high), not the region's own. */
  lineCrop: boolean;
  words: Array<{ text: string; tokens: TokenEvent[] }>;
}

/**
 * Lines and words of one region. `grid` is the region's own grid (its region_start), the frame of tokens
 * that carry none; `markup` says the token texts are HTML (a table), whose tags are not words.
 */
export function regionWords(regionBox: Box, grid: { rows: number; cols: number } | null, tokens: readonly TokenEvent[],
  markup: boolean): LineBox[] {
  const own: Frame | null = grid ? { box: regionBox, ...grid } : null;
  const lines: Building[] = [];
  let line: Building | null = null;
  let word: { text: string; tokens: TokenEvent[] } | null = null;
  const endWord = () => {
    if (word && line) line.words.push(word);
    word = null;
  };
  const endLine = () => {
    endWord();
    if (line && line.words.length > 0) lines.push(line);
    line = null;
  };
  for (const t of tokens) {
    const frame = t.fixation?.frame ?? own;
    if (line && !sameBox(frame?.box, line.frame?.box)) endLine();
    const text = markup ? unescapeHtml(t.text.replace(/<[^>]*>/g, ' ')) : t.text;
    for (const ch of text) {
      if (ch === '\n') endLine();
      else if (/\s/.test(ch)) endWord();
      else {
        line ??= { frame, lineCrop: frame !== own, words: [] };
        word ??= { text: '', tokens: [] };
        word.text += ch;
        if (word.tokens.at(-1) !== t) word.tokens.push(t);
      }
    }
  }
  endLine();
  return lines.map((l) => {
    const lineBox = l.frame?.box ?? regionBox;
    const words = l.words.map((w) => ({ text: w.text, box: wordBox(w.tokens, l, lineBox), confidence: meanProb(w.tokens) }));
    return { box: union(words.map((w) => w.box)), words };
  });
}

function sameBox(a: Box | undefined, b: Box | undefined): boolean {
  return a === b || (!!a && !!b && a.x0 === b.x0 && a.y0 === b.y0 && a.x1 === b.x1 && a.y1 === b.y1);
}

function meanProb(tokens: readonly TokenEvent[]): number {
  return Math.exp(tokens.reduce((s, t) => s + Math.log(Math.max(t.arProb, 1e-9)), 0) / tokens.length);
}

function wordBox(tokens: readonly TokenEvent[], line: Building, lineBox: Box): Box {
  const frame = line.frame;
  const peaks = tokens.map((t) => t.fixation?.indices[0]).filter((p): p is number => p !== undefined);
  if (!frame || peaks.length === 0) return { ...lineBox };
  const cellW = (frame.box.x1 - frame.box.x0) / frame.cols;
  const cellH = (frame.box.y1 - frame.box.y0) / frame.rows;
  const xs = peaks.map((p) => frame.box.x0 + ((p % frame.cols) + 0.5) * cellW);
  const ys = peaks.map((p) => frame.box.y0 + (Math.floor(p / frame.cols) + 0.5) * cellH);
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  // A line crop is one line high: the word takes its height. A region read whole spans several lines.
  const oneLine = line.lineCrop;
  return {
    x0: clamp(Math.min(...xs) - cellW / 2, lineBox.x0, lineBox.x1),
    x1: clamp(Math.max(...xs) + cellW / 2, lineBox.x0, lineBox.x1),
    y0: oneLine ? lineBox.y0 : clamp(Math.min(...ys) - cellH / 2, lineBox.y0, lineBox.y1),
    y1: oneLine ? lineBox.y1 : clamp(Math.max(...ys) + cellH / 2, lineBox.y0, lineBox.y1),
  };
}

function union(boxes: readonly Box[]): Box {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)), y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)), y1: Math.max(...boxes.map((b) => b.y1)),
  };
}
