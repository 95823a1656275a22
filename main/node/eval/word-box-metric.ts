// Where each word sits: a system's words set against the ground truth's (hOCR word boxes). A word of three or
// more characters that the truth has on the page counts; it hits when its box's centre lies inside the box of
// the nearest ground-truth word with the same text, and it fits when it also overlaps that box with an
// intersection over union of at least a half (a box the size of the word, where it is). Words the system
// misread are not counted here (word F1 scores the reading); short words are left out because they repeat on
// a page and make "nearest" a guess.
import { CHECK_BELOW } from '../../../common/confidence';
import type { Box } from '../../../common/protocol';
import { unescapeHtml } from '../pipeline/write/table-markup';

export interface PlacedWord {
  text: string;
  box: Box;
  /** The system's confidence in the word, 0-1, where it gives one. */
  confidence?: number;
}

export interface BoxHits {
  hits: number;
  fits: number;
  total: number;
}

const centre = (b: Box) => ({ x: (b.x0 + b.x1) / 2, y: (b.y0 + b.y1) / 2 });

export function wordBoxHits(words: readonly PlacedWord[], truth: readonly PlacedWord[]): BoxHits {
  const byText = new Map<string, Box[]>();
  for (const t of truth) {
    const boxes = byText.get(t.text);
    if (boxes) boxes.push(t.box);
    else byText.set(t.text, [t.box]);
  }
  let hits = 0;
  let fits = 0;
  let total = 0;
  for (const w of words) {
    const candidates = w.text.length >= 3 ? byText.get(w.text) : undefined;
    if (!candidates) continue;
    const c = centre(w.box);
    const dist = (b: Box) => (centre(b).x - c.x) ** 2 + (centre(b).y - c.y) ** 2;
    const near = candidates.reduce((a, b) => (dist(b) < dist(a) ? b : a));
    total++;
    if (c.x >= near.x0 && c.x <= near.x1 && c.y >= near.y0 && c.y <= near.y1) hits++;
    if (iou(w.box, near) >= 0.5) fits++;
  }
  return { hits, fits, total };
}

function iou(a: Box, b: Box): number {
  const w = Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0));
  const h = Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  const area = (r: Box) => (r.x1 - r.x0) * (r.y1 - r.y0);
  return w * h / Math.max(1e-9, area(a) + area(b) - w * h);
}

export interface ConfidenceSplit {
  /** Words at or above CHECK_BELOW, and how many of them the page has (read right). */
  sure: number;
  sureRight: number;
  /** Words below it (flagged for the user to check), and how many of them are right. */
  unsure: number;
  unsureRight: number;
  /** Words read wrong (not on the page as read), and how many of them were flagged. */
  wrong: number;
  wrongFlagged: number;
}

/**
 * Does a system's confidence say which words to check? Words at or above CHECK_BELOW (sure) and below it
 * (flagged to check), each counted right when the ground truth has the same word on the page (`onPage`: its
 * words); and of the words read wrong, how many were flagged.
 */
export function confidenceSplit(words: readonly PlacedWord[], onPage: ReadonlySet<string>): ConfidenceSplit {
  const split: ConfidenceSplit = { sure: 0, sureRight: 0, unsure: 0, unsureRight: 0, wrong: 0, wrongFlagged: 0 };
  for (const w of words) {
    if (w.confidence === undefined) continue;
    const right = onPage.has(w.text) ? 1 : 0;
    if (!right) {
      split.wrong++;
      if (w.confidence < CHECK_BELOW) split.wrongFlagged++;
    }
    if (w.confidence >= CHECK_BELOW) {
      split.sure++;
      split.sureRight += right;
    } else {
      split.unsure++;
      split.unsureRight += right;
    }
  }
  return split;
}

/** Words and page size of an hOCR file (the ground truth's, or ours). */
export function readHocrWords(xml: string): { page: { width: number; height: number } | null; words: PlacedWord[] } {
  const page = xml.match(/class=['"]ocr_page['"][^>]*title=(['"])(?:(?!\1).)*?bbox 0 0 (\d+) (\d+)/);
  const words: PlacedWord[] = [];
  for (const m of xml.matchAll(/class=['"]ocrx_word['"][^>]*title=['"]bbox (-?\d+) (-?\d+) (-?\d+) (-?\d+)[^>]*>([^<]*)</g)) {
    const text = unescapeHtml(m[5]!).trim();
    if (text) words.push({ text, box: { x0: Number(m[1]), y0: Number(m[2]), x1: Number(m[3]), y1: Number(m[4]) } });
  }
  return { page: page ? { width: Number(page[2]), height: Number(page[3]) } : null, words };
}
