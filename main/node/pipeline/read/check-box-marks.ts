// Check boxes as "[ ]" and "[x]" in the text. A candidate square (detect/check-boxes.ts) is tied to the text
// line it sits in or beside, and read alone by the line model: a box reads as one character the decoder is unsure
// of (it has never learnt a box: "D", "O", "¾") or as the square the encoder names, a letter reads surely, and
// letters run together read as two.
// A confirmed box is cut out of its line, whose text on either side is read as pieces of the line, and stands
// in the line's text as its mark, streamed like a token with the box as its fixation (docs/decisions/0025).
import type { EngineEvent, RegionInput } from '../../../../common/engine-types';
import type { Box } from '../../../../common/protocol';
import { CHECK_BELOW } from '../../../../common/confidence';
import { findCheckBoxes } from '../detect/check-boxes';
import { boundsOf, corners, type Point, type RotatedBox } from '../detect/rotated-box';
import { median, type GrayImage } from '../gray-image';
import { emptyStats } from './event-relay';
import { cropLine, type LineCrop } from './line-crop';
import { LINE_VIEWS, lineView } from './line-views';
import type { PageCrop } from './page-crop';
import type { CheckMark } from '../write/check-marks';
import type { TableMarkup } from '../write/table-markup';

/** A candidate box tied to a text line. */
export interface CheckBoxCandidate {
  /** Its id; its view's is `${id}#0`. */
  id: string;
  /** The line crop it is read with. */
  cropId: string;
  /** Its bounds on the source page. */
  box: Box;
  mark: CheckMark;
  /** Where it lies along its line, as shares of the line crop's width (beside the line: outside [0, 1]). */
  span: [number, number];
  /** The line's rectangle on the source page and the direction it reads in. */
  line: { box: RotatedBox; angle: number };
  /** The box alone (a quarter of its height around it) in the line reader's first view. */
  view: RegionInput;
}

/** Where a page point lies along a line, as a share of its crop's width from the crop's start. */
function alongLine(line: { box: RotatedBox; angle: number }, [x, y]: Point): number {
  const s = (x - line.box.cx) * Math.cos(line.angle) + (y - line.box.cy) * Math.sin(line.angle);
  return s / line.box.width + 0.5;
}

/** Across the line from its middle, in pixels. */
function acrossLine(line: { box: RotatedBox; angle: number }, [x, y]: Point): number {
  return -(x - line.box.cx) * Math.sin(line.angle) + (y - line.box.cy) * Math.cos(line.angle);
}

function centre(b: Box): Point {
  return [(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2];
}

/**
 * Whether a box inside a line stands as a word of its own: the line's group of ink that holds it (line-crop.ts
 * splits the ink at word spaces) reaches at most half the box's width past it either way (a tick may overshoot
 * its box). A letter shaped like a box, a typewriter's "m" or "n", is one piece of a longer word.
 */
function standsAlone(line: MarkableLine, span: [number, number]): boolean {
  const mid = (span[0] + span[1]) / 2;
  const slack = (span[1] - span[0]) / 2;
  return line.words.every((w) => {
    const along = [alongLine(line.crop, [w.x0, w.y0]), alongLine(line.crop, [w.x1, w.y1])].sort((a, b) => a - b);
    return along[0]! > mid || along[1]! < mid || (along[0]! >= span[0] - slack && along[1]! <= span[1] + slack);
  });
}

/** A text line where a check box may stand: its id, crop, and its groups of ink on the page. */
export interface MarkableLine {
  id: string;
  crop: LineCrop;
  words: Box[];
}

/**
 * The check-box candidates of a page, each tied to the text line whose band it sits in, inside it or within a
 * line height of either end, and standing apart from the words there; a candidate by no line is no form's box
 * and is left to the page.
 */
export function checkBoxCandidates(page: GrayImage, lines: readonly MarkableLine[]): CheckBoxCandidate[] {
  if (lines.length === 0) return [];
  const found: CheckBoxCandidate[] = [];
  for (const { box, ticked } of findCheckBoxes(page, median(lines.map((l) => l.crop.box.height)))) {
    const c = centre(box);
    let best: (MarkableLine & { off: number }) | null = null;
    for (const l of lines) {
      const { width, height } = l.crop.box;
      const across = Math.abs(acrossLine(l.crop, c));
      const along = (alongLine(l.crop, c) - 0.5) * width;
      const beyond = Math.max(0, Math.abs(along) - width / 2);
      if (across > height / 2 || beyond > height) continue;
      const off = across + beyond;
      if (!best || off < best.off) best = { ...l, off };
    }
    if (!best) continue;
    const { crop } = best;
    const along = [alongLine(crop, [box.x0, box.y0]), alongLine(crop, [box.x1, box.y0]), alongLine(crop, [box.x1, box.y1]), alongLine(crop, [box.x0, box.y1])];
    const span: [number, number] = [Math.min(...along), Math.max(...along)];
    if (!standsAlone(best, span)) continue;
    const side = Math.max(box.x1 - box.x0, box.y1 - box.y0);
    const around = side * 1.5;
    const alone = cropLine(page, { cx: c[0], cy: c[1], width: around, height: around, angle: crop.angle }, crop.angle);
    const image = lineView(alone.image, LINE_VIEWS[0]!);
    const id = `${best.id}~box${found.length}`;
    found.push({
      id, cropId: best.id, box, mark: ticked ? '[x]' : '[ ]', span,
      line: { box: crop.box, angle: crop.angle },
      view: { id: `${id}#0`, kind: 'text', width: image.width, height: image.height, pixels: image.data },
    });
  }
  return found;
}

/** Unicode's Geometric Shapes (U+25A0-25FF) and ballot boxes (U+2610-2612): what the line encoder names a box. */
const BOX_CHARACTER = /^[\u25a0-\u25ff\u2610-\u2612]$/u;

/**
 * The reader's verdict on a candidate read alone: a box is one character, read with a probability under the
 * words-to-check bar (the decoder has never learnt a box) or named a square or ballot box (the line encoder
 * has: such a character is outside the decoder's vocabulary, so the encoder's reading writes it,
 * docs/decisions/0048). No constant of its own.
 */
function readsAsBox(text: string, prob: number): boolean {
  const characters = [...text.trim()];
  return characters.length === 1 && (prob < CHECK_BELOW || BOX_CHARACTER.test(characters[0]!));
}

/** Tokens a candidate is read to: enough to tell one character from more. */
const CANDIDATE_TOKENS = 4;

/** Reads views with the page's reader, its events streamed to `onEvents`. */
export type ViewReader = (views: RegionInput[], maxNewTokens: number, onEvents: (events: EngineEvent[]) => void) => Promise<void>;

/** The candidates the reader confirms as boxes, all read in one call. */
export async function confirmCheckBoxes(candidates: readonly CheckBoxCandidate[], read: ViewReader): Promise<CheckBoxCandidate[]> {
  if (candidates.length === 0) return [];
  const readings = new Map<string, { text: string; weakest: number }>();
  const probs = new Map<string, number[]>();
  await read(candidates.map((c) => c.view), CANDIDATE_TOKENS, (events) => {
    for (const e of events) {
      const p = probs.get(e.regionId) ?? [];
      probs.set(e.regionId, p);
      // The end of the text is a token with no text: its probability is no character's.
      if (e.type === 'token') p[e.index] = e.text.trim() ? e.arProb : 1;
      else if (e.type === 'retract') p.length = e.index;
      else if (e.type === 'region_end') readings.set(e.regionId, { text: e.text, weakest: Math.min(...p) });
    }
  });
  return candidates.filter((c) => {
    const r = readings.get(c.view.id);
    return r !== undefined && readsAsBox(r.text, r.weakest);
  });
}

/**
 * A box's bounds are where its ink passes Otsu's level; the scan's blur spreads its rules past them, and a
 * piece cut at the bounds reads the spread as "|". Pieces stop this share of the box's width short of it (less
 * than a word space, so no letter is lost).
 */
const RULE_SPREAD = 0.15;

/** Paper-white columns added to a piece so that its width stays a whole number of the encoder's columns. */
const GRID = 8;

/** Columns [x0, x1) of a view, padded with paper on the right to a whole number of encoder columns. */
function viewColumns(view: RegionInput, id: string, x0: number, x1: number): RegionInput {
  const width = Math.ceil((x1 - x0) / GRID) * GRID;
  const pixels = new Uint8Array(width * view.height).fill(255);
  for (let y = 0; y < view.height; y++) pixels.set(view.pixels.subarray(y * view.width + x0, y * view.width + x1), y * width);
  return { id, kind: view.kind, width, height: view.height, pixels };
}

/** The bounds on the page of the part [a, b] of a line (shares of its width). */
function partBounds(line: { box: RotatedBox; angle: number }, a: number, b: number): Box {
  const { cx, cy, width, height } = line.box;
  const mid = ((a + b) / 2 - 0.5) * width;
  const part = { cx: cx + mid * Math.cos(line.angle), cy: cy + mid * Math.sin(line.angle), width: (b - a) * width, height, angle: line.angle };
  const bounds = boundsOf(corners(part));
  return { x0: Math.round(bounds.x0), y0: Math.round(bounds.y0), x1: Math.round(bounds.x1), y1: Math.round(bounds.y1) };
}

/**
 * A line with its confirmed boxes: each box its mark, the text on either side a piece of the line read on its
 * own (a piece with none of the line's ink is left out). Pieces keep the line's views, cut at the box with a
 * margin of RULE_SPREAD.
 */
function cutLine(crop: PageCrop, boxes: CheckBoxCandidate[]): PageCrop[] {
  const line = boxes[0]!.line;
  const sorted = [...boxes].sort((p, q) => p.span[0] - q.span[0]);
  const parts: PageCrop[] = [];
  const piece = (a: number, b: number) => {
    const from = Math.max(0, a);
    const to = Math.min(1, b);
    if (to <= from) return;
    const inked = crop.inkWords.filter((w) => {
      const f = alongLine(line, centre(w));
      return f > from && f < to;
    });
    if (inked.length === 0) return;
    if (from === 0 && to === 1) {
      parts.push(crop);
      return;
    }
    const id = `${crop.id}.${parts.length}`;
    const views = crop.views.map((v, k) => {
      const x0 = from === 0 ? 0 : Math.min(v.width, Math.ceil(from * v.width));
      const x1 = to === 1 ? v.width : Math.max(0, Math.floor(to * v.width));
      return x1 > x0 ? viewColumns(v, `${id}#${k}`, x0, x1) : null;
    });
    if (views.some((v) => v === null)) return;
    parts.push({ ...crop, id, box: partBounds(line, from, to), inkWords: inked, views: views as RegionInput[] });
  };
  let from = -Infinity;
  for (const b of sorted) {
    const spread = RULE_SPREAD * (b.span[1] - b.span[0]);
    piece(from, b.span[0] - spread);
    parts.push({ ...crop, id: `${crop.id}.${parts.length}`, box: b.box, inkWords: [b.box], views: [], checkBox: b.mark });
    from = Math.max(from, b.span[1] + spread);
  }
  piece(from, Infinity);
  return parts;
}

/**
 * The page's crops with its confirmed boxes: lines holding or beside one cut into pieces and marks, every
 * region's lines numbered again in order, and a table's markup given the pieces of a cell's line as later
 * lines of that cell.
 */
export function withCheckBoxes(crops: readonly PageCrop[], confirmed: readonly CheckBoxCandidate[],
  tables: ReadonlyMap<string, TableMarkup>): { crops: PageCrop[]; tables: ReadonlyMap<string, TableMarkup> } {
  if (confirmed.length === 0) return { crops: [...crops], tables };
  const byCrop = new Map<string, CheckBoxCandidate[]>();
  for (const b of confirmed) byCrop.set(b.cropId, [...(byCrop.get(b.cropId) ?? []), b]);
  const next = new Map<string, number>();
  const leads = new Map<string, Array<string | null>>();
  const out = crops.flatMap((c) => {
    const boxes = byCrop.get(c.id);
    const parts = boxes ? cutLine(c, boxes) : [c];
    const table = tables.get(c.regionId);
    if (table) {
      const mine = leads.get(c.regionId) ?? [];
      leads.set(c.regionId, mine);
      parts.forEach((_, k) => mine.push(k === 0 ? table.leads[c.line] ?? null : null));
    }
    return parts.map((part) => {
      const line = next.get(c.regionId) ?? 0;
      next.set(c.regionId, line + 1);
      return { ...part, line };
    });
  });
  const marked = new Map(tables);
  for (const [regionId, l] of leads) marked.set(regionId, { ...tables.get(regionId)!, leads: l });
  return { crops: out, tables: marked };
}

/**
 * The events of a mark's crop, as the engine would stream a one-token line: its grid a single cell, the box,
 * where the token's fixation lies. Its probability is 1: the shape found it and the reader confirmed it.
 */
export function markEvents(cropId: string, mark: CheckMark): EngineEvent[] {
  return [
    { type: 'region_start', regionId: cropId, kind: 'text', grid: { rows: 1, cols: 1 }, imageTokens: 0 },
    { type: 'token', regionId: cropId, index: 0, id: -1, text: mark, round: 0, source: 'ar', draftConf: -1, arProb: 1, decoderProb: -1, readProb: -1, fixation: { indices: [0], weights: [1] } },
    { type: 'region_end', regionId: cropId, text: mark, stats: emptyStats() },
  ];
}
