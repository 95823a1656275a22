// Column gutters narrower than a word-joining gap. Low-resolution newspapers leave little more blank between
// columns than between words, so line grouping joins the columns' lines across the gutter. The gap alone
// cannot tell a gutter from a word space; its run can: a gutter stays blank down many consecutive lines, with
// wide text on both sides pressed against it, while word spaces of consecutive lines do not line up for long.
import type { Box } from '../../../common/protocol';
import { boxHeight, median, unionBox } from './gray-image';

/** Narrowest gutter, in glyph heights: letter and word spaces of body text are narrower. */
const MIN_WIDTH = 1;
/** Lines of text on each side of a gutter: more than word spaces line up by chance. */
const MIN_LINES = 6;
/** Narrowest text beside a gutter, in glyph heights: a list's numbers beside their text are not a column. */
const MIN_COLUMN = 10;
/** How far (in glyph heights) a line edge may sit from the gutter's edge and still count as aligned to it. */
const ALIGN = 0.5;
/** Share of the lines on one side of a gutter that are flush against it (justified or flush-left columns). */
const MIN_ALIGNED = 0.6;
/**
 * Blank between consecutive lines near the gutter (in line heights) that ends it: more than the leading. A
 * running header is set apart from the columns by more, so a word space of it that lines up with a gutter
 * below does not continue the gutter.
 */
const MAX_LEADING = 1;

interface Interval {
  x0: number;
  x1: number;
}

/** The blank stretches of one line, from minus to plus infinity, between its glyphs' horizontal extents. */
function blanks(glyphs: Box[]): Interval[] {
  const sorted = [...glyphs].sort((a, b) => a.x0 - b.x0);
  const out: Interval[] = [];
  let reach = -Infinity;
  for (const g of sorted) {
    if (g.x0 > reach) out.push({ x0: reach, x1: g.x0 });
    reach = Math.max(reach, g.x1);
  }
  out.push({ x0: reach, x1: Infinity });
  return out;
}

interface Run {
  strip: Interval;
  /** Lines beside the strip (or across it), with the blank each leaves there. */
  beside: Array<{ line: number; blank: Interval }>;
}

const overlap = (a: Interval, b: Interval) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
/** A blank with text on both sides, as opposed to the open space before or after a line. */
const inner = (g: Interval) => Number.isFinite(g.x0) && Number.isFinite(g.x1);

/**
 * Follows a blank stretch of line `start` up and down the page (`lines` sorted by top): each line beside it
 * must leave blank where the strip is (the strip narrows to what all leave blank), and the lines must follow
 * each other within the leading. Lines farther than `reach` to the side belong to other columns and are not
 * looked at.
 */
function follow(start: number, seed: Interval, lines: Box[], blanksOf: Interval[][], minWidth: number, maxLeading: number, reach: number): Run {
  let strip = seed;
  const beside = [{ line: start, blank: seed }];
  for (const step of [-1, 1]) {
    let top = lines[start]!.y0;
    let bottom = lines[start]!.y1;
    for (let j = start + step; j >= 0 && j < lines.length; j += step) {
      const l = lines[j]!;
      if ((step > 0 ? l.y0 - bottom : top - l.y1) > maxLeading) break;
      if (l.x1 < strip.x0 - reach || l.x0 > strip.x1 + reach) continue;
      const blank = blanksOf[j]!.reduce((best, g) => (overlap(g, strip) > overlap(best, strip) ? g : best));
      if (overlap(blank, strip) < minWidth) break;
      strip = { x0: Math.max(blank.x0, strip.x0), x1: Math.min(blank.x1, strip.x1) };
      beside.push({ line: j, blank });
      top = Math.min(top, l.y0);
      bottom = Math.max(bottom, l.y1);
    }
  }
  return { strip, beside };
}

/**
 * Whether the text on one side of a strip makes a column: many lines, wide (a list's numbers beside their
 * hanging text are no column), most of them flush against the strip (columns are justified or flush left,
 * while word spaces that happen to line up end wherever their words do). `sides` are each line's text width
 * on that side and its distance from the strip.
 */
function isColumn(sides: Array<{ width: number; off: number }>, xh: number): { column: boolean; flush: boolean } {
  const column = sides.length >= MIN_LINES && median(sides.map((s) => s.width)) >= MIN_COLUMN * xh;
  return { column, flush: sides.filter((s) => s.off <= ALIGN * xh).length >= MIN_ALIGNED * sides.length };
}

/** A gutter has a column on both sides, at least one of them flush against it. */
function isGutter(run: Run, lines: Box[], xh: number): boolean {
  const { strip, beside } = run;
  const left = isColumn(beside.filter((b) => Number.isFinite(b.blank.x0))
    .map((b) => ({ width: b.blank.x0 - lines[b.line]!.x0, off: strip.x0 - b.blank.x0 })), xh);
  const right = isColumn(beside.filter((b) => Number.isFinite(b.blank.x1))
    .map((b) => ({ width: lines[b.line]!.x1 - b.blank.x1, off: b.blank.x1 - strip.x1 })), xh);
  return left.column && right.column && (left.flush || right.flush);
}

/**
 * Where lines cross a column gutter: for each line (its glyphs, as line grouping joined them), the x positions
 * at which it is to be cut into the columns' own lines. `xh` is the page's glyph height.
 */
export function gutterCuts(lines: Box[][], xh: number): number[][] {
  const cuts = lines.map((): number[] => []);
  const all = lines.map((g) => g.reduce(unionBox));
  // Specks and dots are not lines: one in a gutter must not end it.
  const order = all.map((_, i) => i).filter((i) => boxHeight(all[i]!) >= 0.7 * xh).sort((a, b) => all[a]!.y0 - all[b]!.y0);
  const boxes = order.map((i) => all[i]!);
  const blanksOf = order.map((i) => blanks(lines[i]!));
  const maxLeading = MAX_LEADING * median(boxes.map(boxHeight));
  const minWidth = MIN_WIDTH * xh;
  for (let k = 0; k < boxes.length; k++) {
    for (const seed of blanksOf[k]!.filter(inner)) {
      if (seed.x1 - seed.x0 < minWidth || cuts[order[k]!]!.some((x) => x > seed.x0 && x < seed.x1)) continue;
      const run = follow(k, seed, boxes, blanksOf, minWidth, maxLeading, MIN_COLUMN * xh);
      if (!isGutter(run, boxes, xh)) continue;
      const x = (run.strip.x0 + run.strip.x1) / 2;
      for (const b of run.beside.filter((b) => inner(b.blank))) cuts[order[b.line]!]!.push(x);
    }
  }
  return cuts;
}
