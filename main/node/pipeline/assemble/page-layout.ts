// Assembly: the detected lines and regions of a page (detect/) become the blocks it is read and written in,
// in reading order. What the detectors give is taken as they give it: a line is a line, a table, figure,
// title, header, footer or formula is the layout detector's region. What no detector gives is ours: which
// lines make a paragraph, a table's rows and columns (table-grid.ts), and the order of the blocks (XY-cut,
// reading-order.ts), with headers first and footers last so that they never split the body.
import type { Box, LayoutRegion } from '../../../../common/protocol';
import type { LayoutLabel, LayoutRegionGuess } from '../detect/layout-regions';
import type { RotatedBox } from '../detect/rotated-box';
import { boxArea, boxHeight, boxWidth, intersectionArea, median, unionBox } from '../gray-image';
import { Gutters, linesInReadingOrder, readingOrder, sameRow, verticalOverlap } from './reading-order';
import { tableGrid, type TableGrid } from './table-grid';

export type BlockKind = LayoutRegion['kind'];

/**
 * A text line's bounds in the page's upright frame, with `own`, the detector's rectangle on the source page and
 * the direction it reads in (the line is cut along it). A box that is no one detected line (a formula read
 * whole) has none and is cut level in the frame.
 */
export interface FrameLine extends Box {
  own?: { box: RotatedBox; angle: number };
}

export interface LayoutBlock {
  kind: BlockKind;
  /** In the upright frame. */
  box: Box;
  /**
   * Text lines, in reading order (rows top to bottom, left to right within a row, columns of prose one after
   * the other); empty for a formula.
   */
  lines: FrameLine[];
  /** Reading order: where the block is written (a figure as an image; its text in blocks of its own after it). */
  order: number | null;
  /** Tables: rows, columns and the cells that hold text. */
  grid?: TableGrid<FrameLine>;
}

/** What each layout class becomes: captions and references are text to us. */
const KIND: Record<LayoutLabel, BlockKind> = {
  text: 'text', reference: 'text', figure_caption: 'text', table_caption: 'text', title: 'title',
  figure: 'figure', table: 'table', header: 'header', footer: 'footer', equation: 'formula',
};
/** The kinds of region read line by line as text. */
const TEXT_KINDS: ReadonlySet<BlockKind> = new Set(['text', 'title', 'header', 'footer']);
/** A line belongs to a region holding at least this share of its area. */
const INSIDE = 0.6;
/** A line of prose, thirty or more characters, is at least this many times as long as it is high. */
const PROSE_LINE = 12;

const horizontalOverlap = (a: Box, b: Box) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

/**
 * Regions that cover the same ground (a table the detector also calls a figure): the surer one is kept. A
 * region overlapping a kept one by half of the smaller's area, or more, is the same ground.
 */
function distinctRegions(regions: readonly LayoutRegionGuess[]): LayoutRegionGuess[] {
  const kept: LayoutRegionGuess[] = [];
  for (const r of [...regions].sort((a, b) => b.score - a.score)) {
    const clash = kept.some((k) => KIND[k.label] !== 'text' && KIND[r.label] !== 'text'
      && intersectionArea(k.box, r.box) >= 0.5 * Math.min(boxArea(k.box), boxArea(r.box)));
    if (!clash) kept.push(r);
  }
  return kept;
}

/**
 * Whether a table region's grid looks like a table's: fewer than half of its cells as wide as a line of prose
 * (PROSE_LINE text heights). Prose set in columns (a newspaper page, which a layout detector can take for one
 * big table) makes a grid of long cells, one per column and line.
 */
function tableLike(grid: TableGrid<FrameLine>): boolean {
  const long = grid.cells.filter((c) => {
    const box = c.lines.reduce<Box>(unionBox, c.lines[0]!);
    return boxWidth(box) >= PROSE_LINE * median(c.lines.map(boxHeight));
  }).length;
  return 2 * long < grid.cells.length;
}

/**
 * Paragraphs of the lines no region claimed: a line joins the one above it when the gap between them is under
 * the smaller line's height, or they overlap by less than half of it (more is one row), they overlap sideways
 * by a third of the narrower, and neither is half again as tall; lines of one row closer than their height
 * join too (the detector cuts a line at a wide space), unless a gutter between columns of prose parts them (a
 * newspaper's can be narrower than a line's height).
 */
function paragraphs(lines: readonly FrameLine[], gutters: Gutters): FrameLine[][] {
  const parent = lines.map((_, i) => i);
  const find = (a: number): number => (parent[a] === a ? a : (parent[a] = find(parent[a]!)));
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i]!;
      const b = lines[j]!;
      const ha = boxHeight(a);
      const hb = boxHeight(b);
      const small = Math.min(ha, hb);
      if (Math.max(ha, hb) > 1.5 * small) continue;
      // The detector's boxes hold a margin above and below the letters: lines of tight leading overlap a little.
      const stacked = !sameRow(a, b) && -verticalOverlap(a, b) < small
        && horizontalOverlap(a, b) >= Math.min(boxWidth(a), boxWidth(b)) / 3;
      const [left, right] = a.x0 <= b.x0 ? [a, b] : [b, a];
      const beside = sameRow(a, b) && -horizontalOverlap(a, b) < small && !gutters.partsProse(left.x1, right.x0);
      if (stacked || beside) parent[find(j)] = find(i);
    }
  }
  const groups = new Map<number, FrameLine[]>();
  lines.forEach((l, i) => {
    const g = groups.get(find(i));
    if (g) g.push(l);
    else groups.set(find(i), [l]);
  });
  return [...groups.values()];
}

/** The page's blocks in reading order, from the detected lines and regions (all in the upright frame). */
export function assemblePage(lines: readonly FrameLine[], regions: readonly LayoutRegionGuess[]): LayoutBlock[] {
  const lineHeight = Math.max(1, median(lines.map(boxHeight)));
  const gutters = Gutters.ofProse(lines, lineHeight);
  const kept = distinctRegions(regions);
  const members = new Map<LayoutRegionGuess, FrameLine[]>(kept.map((r) => [r, []]));
  const free: FrameLine[] = [];
  for (const l of lines) {
    // The smallest region holding the line: a caption inside a figure's box is the caption's.
    const home = kept.filter((r) => intersectionArea(r.box, l) >= INSIDE * boxArea(l))
      .sort((a, b) => boxArea(a.box) - boxArea(b.box))[0];
    if (home) members.get(home)!.push(l);
    else free.push(l);
  }
  const blocks: LayoutBlock[] = [];
  // The text printed inside a figure (a diagram's labels, an organisation chart, a slide the detector took for
  // a picture) is read in its own paragraphs, which follow the figure.
  const inside = new Map<LayoutBlock, LayoutBlock[]>();
  for (const [region, own] of members) {
    const kind = KIND[region.label];
    // A text region one line high where the detector found no line at all (a page number set apart, in spaced
    // or faint type) is read as that line: the layout model saw text there, and a reading it cannot stand by is
    // dropped as unsure, where the user sees it. A taller one, or one over a line found, is nothing to read; a
    // figure is kept all the same.
    if (own.length === 0 && TEXT_KINDS.has(kind) && boxHeight(region.box) < 2 * lineHeight && !lines.some((l) => intersectionArea(l, region.box) > 0)) {
      blocks.push({ kind, box: region.box, lines: [{ ...region.box }], order: null });
      continue;
    }
    if (own.length === 0 && kind !== 'figure' && kind !== 'formula') continue;
    const grid = kind === 'table' ? tableGrid(own) : null;
    // Prose the detector took for a table (a newspaper's columns) is read as prose.
    if (grid && !tableLike(grid)) {
      blocks.push(...paragraphs(own, gutters).map((p) => textBlock(p, gutters)));
      continue;
    }
    // A region's box is the detector's guess; where it holds lines, theirs is exact (and keeps a narrow gutter
    // between columns open for the reading order).
    const box = own.length ? own.reduce<Box>(unionBox, own[0]!) : region.box;
    if (grid) blocks.push({ kind, box, lines: [], order: null, grid });
    else if (kind === 'figure') {
      const figure: LayoutBlock = { kind, box: region.box, lines: [], order: null };
      blocks.push(figure);
      inside.set(figure, ordered(paragraphs(own, gutters).map((p) => textBlock(p, gutters)), gutters));
    } else blocks.push({ kind, box, lines: kind === 'formula' ? [] : linesInReadingOrder(own, gutters), order: null });
  }
  blocks.push(...paragraphs(free, gutters).map((p) => textBlock(p, gutters)));
  const rank = (b: LayoutBlock) => (b.kind === 'header' ? 0 : b.kind === 'footer' ? 2 : 1);
  const result = ordered(blocks, gutters).sort((a, b) => rank(a) - rank(b)).flatMap((b) => [b, ...(inside.get(b) ?? [])]);
  result.forEach((b, n) => (b.order = n));
  return result;
}

function textBlock(lines: FrameLine[], gutters: Gutters): LayoutBlock {
  return { kind: 'text', box: lines.reduce<Box>(unionBox, lines[0]!), lines: linesInReadingOrder(lines, gutters), order: null };
}

/** Blocks in reading order (XY-cut over their boxes). */
function ordered(blocks: LayoutBlock[], gutters: Gutters): LayoutBlock[] {
  return readingOrder(blocks.map((b) => b.box), gutters).map((i) => blocks[i]!);
}

/** A page known to be one table (a table crop): its grid from every line, nothing else looked for. */
export function assembleTable(lines: readonly FrameLine[], width: number, height: number): LayoutBlock[] {
  return [{ kind: 'table', box: { x0: 0, y0: 0, x1: width, y1: height }, lines: [], order: 0, grid: tableGrid(lines) }];
}
