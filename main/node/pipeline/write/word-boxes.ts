// Where each word sits on the page, and how sure the model was of it, from what the engine streamed: every
// token's fixation peak is the image cell the model looked at while writing it (the benchmark's heatmap hit
// rate measures how often that is the cell of the word being written), and a word is as sure as its least sure
// token (tokenConfidence). A word's box spans the cells of its tokens' peaks, widened by half a cell and kept
// inside its line; a word with no fixation gets its whole line. Lines are the line crops the page was read in (a
// token's fixation frame), or, for a region read whole, its text lines split at newlines. Where the page
// pipeline found the line's groups of ink (ink-words.ts), the words are aligned to them and take their
// boxes: the ink has the page's resolution, the fixation an image token's.
import type { TokenEvent } from '../../../../common/engine-types';
import type { Box } from '../../../../common/protocol';
import { tokenConfidence } from '../../../../common/confidence';
import { quarterTurns, turnBox } from '../../../../common/quarter-turns';
import { isCheckMark } from './check-marks';
import { unescapeHtml } from './table-markup';

export interface WordBox {
  text: string;
  box: Box;
  /** The lowest confidence among the tokens that wrote it (tokenConfidence): a word is as sure as its least sure part. */
  confidence: number;
  /** 'encoder': the line encoder's own reading wrote it, not the decoder (TokenSource 'encoder'). */
  readBy?: 'encoder';
}

export interface LineBox {
  box: Box;
  words: WordBox[];
  /** The direction the line's text runs in on the page (FixationFrame.angle), where its crop said. */
  angle?: number;
}

interface Frame {
  box: Box;
  rows: number;
  cols: number;
  /** The direction the line's text runs in on the page (FixationFrame.angle). */
  angle?: number;
}

interface Building {
  frame: Frame | null;
  /** The frame is a line crop's (one line high), not the region's own. */
  lineCrop: boolean;
  words: Array<{ text: string; tokens: TokenEvent[] }>;
}

/**
 * Lines and words of one region. `grid` is the region's own grid (its region_start), the frame of tokens
 * that carry none; `markup` says the token texts are HTML (a table), whose tags are not words. `inkOf`
 * gives a line crop's groups of ink by its box, where the pipeline measured them.
 */
export function regionWords(regionBox: Box, grid: { rows: number; cols: number } | null, tokens: readonly TokenEvent[],
  markup: boolean, inkOf?: (lineBox: Box) => readonly Box[] | undefined): LineBox[] {
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
  const frames = lineFrames(tokens, own, markup);
  tokens.forEach((t, k) => {
    const frame = frames[k]!;
    if (line && !sameBox(frame?.box, line.frame?.box)) endLine();
    const text = markup ? unescapeHtml(t.text.replace(/<[^>]*>/g, ' ')) : t.text;
    // A check box's mark is one word, its space included.
    if (isCheckMark(text.trim())) {
      endWord();
      line ??= { frame, lineCrop: frame !== own, words: [] };
      line.words.push({ text: text.trim(), tokens: [t] });
      return;
    }
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
  });
  endLine();
  return lines.map((l) => {
    const pageBox = l.frame?.box ?? regionBox;
    // Boxes are worked out in the line's own frame, where its text runs left to right (a line of a page turned
    // a quarter or upside down included), and turned back onto the page.
    const turn = quarterTurns(l.frame?.angle ?? 0);
    const lineBox = turnBox(pageBox, turn);
    const inLine: Building = { ...l, frame: l.frame && { ...l.frame, box: lineBox } };
    const words = l.words.map((w): WordBox => ({ text: w.text, box: wordBox(w.tokens, inLine, lineBox), confidence: weakest(w.tokens),
      ...(w.tokens.every((t) => t.source === 'encoder') ? { readBy: 'encoder' as const } : {}) }));
    const ink = l.lineCrop ? inkOf?.(pageBox)?.map((b) => turnBox(b, turn)) : undefined;
    const located = l.words.map((w) => w.tokens.some((t) => (t.fixation?.indices.length ?? 0) > 0));
    if (ink && ink.length > 0) alignToInk(words, located, ink, lineBox.y1 - lineBox.y0);
    for (const w of words) w.box = turnBox(w.box, (4 - turn) % 4);
    return { box: union(words.map((w) => w.box)), words, ...(l.frame?.angle !== undefined ? { angle: l.frame.angle } : {}) };
  });
}


/**
 * Each token's frame. A token without fixation (fixation's warm-up, a row that kept none) was read in the same
 * line crop as the framed tokens around it in its text line: it takes the previous one's frame, or at a line's
 * start the next one's. A line starts after a newline, or in a table at a cell's markup. Tokens of a region
 * read whole have no frame: the region's own.
 */
function lineFrames(tokens: readonly TokenEvent[], own: Frame | null, markup: boolean): Array<Frame | null> {
  const frames: Array<Frame | null | undefined> = tokens.map((t) => t.fixation?.frame);
  const newLine = (k: number) => tokens[k]!.text.includes('\n') || (markup && tokens[k]!.text.includes('<'));
  for (let k = 1; k < frames.length; k++) if (!frames[k] && !newLine(k)) frames[k] = frames[k - 1];
  for (let k = frames.length - 2; k >= 0; k--) if (!frames[k] && !newLine(k + 1)) frames[k] = frames[k + 1];
  return frames.map((f) => f ?? own);
}

function sameBox(a: Box | undefined, b: Box | undefined): boolean {
  return a === b || (!!a && !!b && a.x0 === b.x0 && a.y0 === b.y0 && a.x1 === b.x1 && a.y1 === b.y1);
}

function weakest(tokens: readonly TokenEvent[]): number {
  return Math.min(...tokens.map(tokenConfidence));
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

// Costs of the alignment below, in line heights: a word's box against the ink it is given (centre offset,
// and half the difference from the width its characters should take), an ink group left to no word (noise,
// a rule, a word the reading dropped; wider groups cost more), a word left without ink, and each extra word
// sharing one group (words the scan runs together).
const SKIP_GROUP = 0.6;
const NO_INK = 1.5;
const SHARE = 0.4;
const MAX_GROUPS_PER_WORD = 8;
const MAX_WORDS_PER_GROUP = 4;
/**
 * A line's words times its ink groups past which the words keep their fixation boxes: a line the model reads
 * (1,024 tokens at most: a few hundred words and groups) stays far under it; a decode a client sends back for
 * an export (edited-pdf.ts) may not.
 */
const MAX_ALIGNMENT_CELLS = 400_000;

/**
 * Aligns a line's words (in reading order, boxes from fixation) with its ink groups (left to right) by
 * dynamic programming: each word takes a run of groups, or a share of one group split by character count,
 * or no ink; groups may go to no word. Words that get ink take its box, in place. A word without fixation
 * (`located` false) is placed by its order and width alone.
 */
function alignToInk(words: WordBox[], located: readonly boolean[], ink: readonly Box[], lineHeight: number): void {
  const groups = [...ink].sort((a, b) => a.x0 - b.x0);
  const n = words.length;
  const m = groups.length;
  if (n * m > MAX_ALIGNMENT_CELLS) return;
  const h = Math.max(1, lineHeight);
  const chars = words.map((w) => [...w.text].length);
  const inkWidth = groups.reduce((s, g) => s + g.x1 - g.x0, 0);
  const charWidth = inkWidth / Math.max(1, chars.reduce((a, b) => a + b, 0));
  const fit = (i: number, b: Box) => {
    const w = words[i]!.box;
    const offset = located[i] ? Math.abs((w.x0 + w.x1) / 2 - (b.x0 + b.x1) / 2) : 0;
    return (offset + 0.5 * Math.abs(b.x1 - b.x0 - chars[i]! * charWidth)) / h;
  };
  // Parts of group j split among words i..l-1 in proportion to their characters.
  const split = (j: number, i: number, l: number): Box[] => {
    const g = groups[j]!;
    const total = chars.slice(i, l).reduce((a, b) => a + b, 0);
    const parts: Box[] = [];
    let at = g.x0;
    for (let w = i; w < l; w++) {
      const x1 = w === l - 1 ? g.x1 : at + ((g.x1 - g.x0) * chars[w]!) / total;
      parts.push({ x0: at, y0: g.y0, x1, y1: g.y1 });
      at = x1;
    }
    return parts;
  };
  type Step = { cost: number; from: [number, number]; boxes: Array<[number, Box]> };
  const best: Step[][] = Array.from({ length: n + 1 }, () => Array.from({ length: m + 1 }, () => ({ cost: Infinity, from: [-1, -1], boxes: [] })));
  best[0]![0]!.cost = 0;
  const relax = (i: number, j: number, i2: number, j2: number, cost: number, boxes: Array<[number, Box]>) => {
    const c = best[i]![j]!.cost + cost;
    if (c < best[i2]![j2]!.cost) best[i2]![j2] = { cost: c, from: [i, j], boxes };
  };
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      if (best[i]![j]!.cost === Infinity) continue;
      if (j < m) relax(i, j, i, j + 1, SKIP_GROUP + (groups[j]!.x1 - groups[j]!.x0) / h, []);
      if (i === n) continue;
      relax(i, j, i + 1, j, NO_INK, []);
      let span: Box | null = null;
      for (let k = j; k < Math.min(m, j + MAX_GROUPS_PER_WORD); k++) {
        span = span ? union([span, groups[k]!]) : { ...groups[k]! };
        relax(i, j, i + 1, k + 1, fit(i, span), [[i, span]]);
      }
      if (j < m) {
        for (let l = i + 2; l <= Math.min(n, i + MAX_WORDS_PER_GROUP); l++) {
          const parts = split(j, i, l);
          const cost = parts.reduce((s, p, w) => s + fit(i + w, p), 0) + SHARE * (l - i - 1);
          relax(i, j, l, j + 1, cost, parts.map((p, w): [number, Box] => [i + w, p]));
        }
      }
    }
  }
  for (let i = n, j = m; i > 0 || j > 0;) {
    const step = best[i]![j]!;
    for (const [w, box] of step.boxes) words[w]!.box = box;
    [i, j] = step.from;
  }
}
