// Reading order by recursive XY-cut. Column gutters are cut before horizontal gaps: two columns often share
// a blank row by chance (paragraph breaks at the same height), but a full-width title or table never leaves
// a gutter, so preferring the vertical cut reads columns whole and still puts spanning blocks in place.
import type { Box } from '../../../../common/protocol';

/** Splits items into groups separated by gaps of at least minGap along one axis, in axis order. */
function splitByGaps(items: number[], boxes: Box[], axis: 'x' | 'y', minGap: number): number[][] {
  const lo = (i: number) => (axis === 'x' ? boxes[i]!.x0 : boxes[i]!.y0);
  const hi = (i: number) => (axis === 'x' ? boxes[i]!.x1 : boxes[i]!.y1);
  const sorted = [...items].sort((a, b) => lo(a) - lo(b));
  const groups: number[][] = [];
  let current: number[] = [];
  let reach = -Infinity;
  for (const i of sorted) {
    if (current.length > 0 && lo(i) - reach >= minGap) {
      groups.push(current);
      current = [];
    }
    current.push(i);
    reach = Math.max(reach, hi(i));
  }
  if (current.length) groups.push(current);
  return groups;
}

/**
 * Joins consecutive rows into one band while they share their columns. A full-width block (a title, a running
 * footer) stops the column cut for the whole page, and the rows below it would otherwise be read across both
 * columns wherever the columns happen to share a blank row. A row joins only if the union has no more columns
 * than the band or the row alone: short lines that merely sit apart (a caption under two sub-figure labels, a
 * word left of a formula) do not make columns.
 */
function bands(rows: number[][], boxes: Box[], minGutter: number): number[][] {
  const columns = (items: number[]) => splitByGaps(items, boxes, 'x', minGutter).length;
  const out: number[][] = [];
  for (const row of rows) {
    const last = out[out.length - 1];
    const joined = last ? columns([...last, ...row]) : 1;
    if (last && joined > 1 && joined <= Math.max(columns(last), columns(row))) last.push(...row);
    else out.push([...row]);
  }
  return out;
}

function cut(items: number[], boxes: Box[], minGutter: number): number[] {
  if (items.length <= 1) return items;
  const columns = splitByGaps(items, boxes, 'x', minGutter);
  if (columns.length > 1) return columns.flatMap((c) => cut(c, boxes, minGutter));
  const rows = splitByGaps(items, boxes, 'y', 1);
  if (rows.length > 1) return bands(rows, boxes, minGutter).flatMap((r) => cut(r, boxes, minGutter));
  // Overlapping boxes that no cut separates: top to bottom, then left to right.
  return [...items].sort((a, b) => boxes[a]!.y0 - boxes[b]!.y0 || boxes[a]!.x0 - boxes[b]!.x0);
}

/**
 * Indices of `boxes` in reading order. A column gutter is at least `lineHeight` wide (a text line's height: a
 * word space is a fraction of it, the gutters of print a line height or more).
 */
export function readingOrder(boxes: Box[], lineHeight: number): number[] {
  return cut(boxes.map((_, i) => i), boxes, Math.max(4, lineHeight));
}
