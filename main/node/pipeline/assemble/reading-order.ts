// Reading order by recursive XY-cut. Column gutters are cut before horizontal gaps: two columns often share
// a blank row by chance (paragraph breaks at the same height), but a full-width title or table never leaves
// a gutter, so preferring the vertical cut reads columns whole and still puts spanning blocks in place.
import type { Box } from '../../../../common/protocol';
import { boxHeight, boxWidth, median } from '../gray-image';

/** Whether the blank between `from` and `to` on the x axis parts two columns. */
type GutterTest = (from: number, to: number) => boolean;

/** A narrow gutter counts once the lines of this many rows start at it. */
const GUTTER_ROWS = 3;
/**
 * Columns of prose fill their width, and their widths are alike: each side's median line spans at least this
 * share of its column, and the narrower column is at least this share of the wider. A form's labels (short
 * and ragged) beside their values are no columns.
 */
const PROSE_FILL = 0.75;

export const verticalOverlap = (a: Box, b: Box) => Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);

/** Two boxes are one row when they share half the smaller one's height. */
export const sameRow = (a: Box, b: Box) => verticalOverlap(a, b) >= 0.5 * Math.min(boxHeight(a), boxHeight(b));

/** Rows top to bottom, each left to right: a row is boxes sharing half their height. */
export function inRows<T extends Box>(boxes: readonly T[]): T[] {
  const rows: T[][] = [];
  for (const b of [...boxes].sort((p, q) => (p.y0 + p.y1) - (q.y0 + q.y1))) {
    const row = rows.find((r) => r.some((o) => sameRow(o, b)));
    if (row) row.push(b);
    else rows.push([b]);
  }
  return rows.sort((a, b) => Math.min(...a.map((l) => l.y0)) - Math.min(...b.map((l) => l.y0)))
    .flatMap((r) => r.sort((a, b) => a.x0 - b.x0));
}

/**
 * The column gutters of a page. A gutter is wide (a text line's height or more: a word space is a fraction of
 * one, the gutters of print a line height or more), or it is a narrow gutter between columns of prose, found
 * from the lines themselves: a newspaper sets its columns a few pixels apart at scan resolution, closer than
 * two words of a form, and only the lines' alignment tells the gutter from a space.
 */
export class Gutters {
  private constructor(private readonly minWide: number, private readonly prose: readonly { from: number; to: number }[]) {}

  static wide(lineHeight: number): Gutters {
    return new Gutters(Math.max(4, lineHeight), []);
  }

  /**
   * Narrow gutters between columns of prose: the blank between neighbours of one row, at the same place on
   * GUTTER_ROWS rows or more, where the lines to its right start within a line height of each other and both
   * columns are of like width and filled by their lines (PROSE_FILL).
   */
  static ofProse(lines: readonly Box[], lineHeight: number): Gutters {
    const gaps: { left: Box; right: Box }[] = [];
    for (const a of lines) {
      const next = lines.filter((b) => b !== a && sameRow(a, b) && b.x0 >= a.x1)
        .sort((p, q) => p.x0 - q.x0)[0];
      if (next) gaps.push({ left: a, right: next });
    }
    // Gaps whose right-hand lines start together, within a line height of the first: one candidate gutter.
    gaps.sort((p, q) => p.right.x0 - q.right.x0);
    const spans: { from: number; to: number }[] = [];
    for (let start = 0, end = 0; start < gaps.length; start = end) {
      while (end < gaps.length && gaps[end]!.right.x0 - gaps[start]!.right.x0 < lineHeight) end++;
      const group = gaps.slice(start, end);
      const span = { from: Math.max(...group.map((g) => g.left.x1)), to: Math.min(...group.map((g) => g.right.x0)) };
      if (span.from < span.to && proseColumns(group, span)) spans.push(span);
    }
    return new Gutters(Math.max(4, lineHeight), spans);
  }

  /** Whether a narrow gutter between columns of prose lies in the blank from `from` to `to`. */
  partsProse(from: number, to: number): boolean {
    return this.prose.some((s) => from <= (s.from + s.to) / 2 && (s.from + s.to) / 2 <= to);
  }

  separates(from: number, to: number): boolean {
    return to - from >= this.minWide || this.partsProse(from, to);
  }

  get hasProse(): boolean {
    return this.prose.length > 0;
  }
}

/** Whether the gaps of one gutter part two columns of prose (see Gutters.ofProse). */
function proseColumns(gaps: readonly { left: Box; right: Box }[], span: { from: number; to: number }): boolean {
  if (new Set(gaps.map((g) => g.right)).size < GUTTER_ROWS) return false;
  const lefts = gaps.map((g) => g.left);
  const rights = gaps.map((g) => g.right);
  const leftWidth = span.from - median(lefts.map((l) => l.x0));
  const rightWidth = Math.max(...rights.map((r) => r.x1)) - span.to;
  return Math.min(leftWidth, rightWidth) >= PROSE_FILL * Math.max(leftWidth, rightWidth)
    && median(lefts.map(boxWidth)) >= PROSE_FILL * leftWidth
    && median(rights.map(boxWidth)) >= PROSE_FILL * rightWidth;
}

/** Splits items into groups parted by gaps that `isGap` accepts along one axis, in axis order. */
function splitByGaps(items: number[], boxes: readonly Box[], axis: 'x' | 'y', isGap: GutterTest): number[][] {
  const lo = (i: number) => (axis === 'x' ? boxes[i]!.x0 : boxes[i]!.y0);
  const hi = (i: number) => (axis === 'x' ? boxes[i]!.x1 : boxes[i]!.y1);
  const sorted = [...items].sort((a, b) => lo(a) - lo(b));
  const groups: number[][] = [];
  let current: number[] = [];
  let reach = -Infinity;
  for (const i of sorted) {
    if (current.length > 0 && isGap(reach, lo(i))) {
      groups.push(current);
      current = [];
    }
    current.push(i);
    reach = Math.max(reach, hi(i));
  }
  if (current.length) groups.push(current);
  return groups;
}

interface Cut {
  boxes: readonly Box[];
  isGutter: GutterTest;
  /** The order of items that no cut separates. */
  leaf: (items: number[]) => number[];
}

const anyBlankRow: GutterTest = (from, to) => to - from >= 1;

/**
 * Joins consecutive rows into one band while they share their columns. A full-width block (a title, a running
 * footer) stops the column cut for the whole page, and the rows below it would otherwise be read across both
 * columns wherever the columns happen to share a blank row. A row joins only if the union has no more columns
 * than the band or the row alone: short lines that merely sit apart (a caption under two sub-figure labels, a
 * word left of a formula) do not make columns.
 */
function bands(rows: number[][], c: Cut): number[][] {
  const columns = (items: number[]) => splitByGaps(items, c.boxes, 'x', c.isGutter).length;
  const out: number[][] = [];
  for (const row of rows) {
    const last = out[out.length - 1];
    const joined = last ? columns([...last, ...row]) : 1;
    if (last && joined > 1 && joined <= Math.max(columns(last), columns(row))) last.push(...row);
    else out.push([...row]);
  }
  return out;
}

function cut(items: number[], c: Cut): number[] {
  if (items.length <= 1) return items;
  const columns = splitByGaps(items, c.boxes, 'x', c.isGutter);
  if (columns.length > 1) return columns.flatMap((col) => cut(col, c));
  const rows = splitByGaps(items, c.boxes, 'y', anyBlankRow);
  if (rows.length > 1) return bands(rows, c).flatMap((r) => cut(r, c));
  return c.leaf(items);
}

/** Indices of `boxes` (blocks of a page) in reading order, cut at `gutters`. */
export function readingOrder(boxes: readonly Box[], gutters: Gutters): number[] {
  // Overlapping boxes that no cut separates: top to bottom, then left to right.
  const leaf = (items: number[]) => [...items].sort((a, b) => boxes[a]!.y0 - boxes[b]!.y0 || boxes[a]!.x0 - boxes[b]!.x0);
  return cut(boxes.map((_, i) => i), { boxes, isGutter: (from, to) => gutters.separates(from, to), leaf });
}

/**
 * The lines of one block in reading order: rows top to bottom, left to right within a row, except that
 * columns of prose parted by a narrow gutter (which a layout detector can merge into one region) are read one
 * after the other. Wide blanks inside a block are spaces between a form's label and value, not gutters.
 */
export function linesInReadingOrder<T extends Box>(lines: readonly T[], gutters: Gutters): T[] {
  if (!gutters.hasProse) return inRows(lines);
  const leaf = (items: number[]) => inRows(items.map((i) => ({ ...lines[i]!, i }))).map((b) => b.i);
  return cut(lines.map((_, i) => i), { boxes: lines, isGutter: (from, to) => gutters.partsProse(from, to), leaf })
    .map((i) => lines[i]!);
}
