// Classical page layout: connected components -> text lines -> blocks, ruled tables and figures from the
// large components, a few shape cues for titles, display formulas, headers and footers, and reading order
// by recursive XY-cut. See docs/decisions/0005-page-layout.md for why each threshold is what it is.
import type { Box, LayoutRegion } from '../../../common/protocol';
import { connectedComponents, type Component } from './components';
import { boxArea, boxHeight, boxWidth, median, unionBox } from './gray-image';
import { gutterCuts } from './gutters';
import { readingOrder } from './reading-order';
import { tableGrid, type TableGrid } from './table-grid';

export type BlockKind = LayoutRegion['kind'];

export interface LayoutBlock {
  kind: BlockKind;
  box: Box;
  /** Text lines, top to bottom (text, title, header, footer, list); empty for whole-crop kinds. */
  lines: Box[];
  /** Reading order; null for regions that are not read (figures). */
  order: number | null;
  /** Tables: rows, columns and the cells that hold text. */
  grid?: TableGrid;
}

export interface PageLayout {
  blocks: LayoutBlock[];
  /** Median ink component height: the page's x-height scale, in pixels. */
  charHeight: number;
}

class UnionFind {
  private readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
  }
  find(a: number): number {
    while (this.parent[a] !== a) {
      this.parent[a] = this.parent[this.parent[a]!]!;
      a = this.parent[a]!;
    }
    return a;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[rb] = ra;
  }
  groups(n: number): number[][] {
    const m = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      const r = this.find(i);
      const g = m.get(r);
      if (g) g.push(i);
      else m.set(r, [i]);
    }
    return [...m.values()];
  }
}

const verticalOverlap = (a: Box, b: Box) => Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
const horizontalOverlap = (a: Box, b: Box) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
const centreInside = (c: Box, b: Box) => {
  const cx = (c.x0 + c.x1) / 2;
  const cy = (c.y0 + c.y1) / 2;
  return cx >= b.x0 && cx <= b.x1 && cy >= b.y0 && cy <= b.y1;
};

/**
 * Rules inside a box: rows and columns whose longest ink run spans `fraction` of it, a thick rule counted
 * once; `inner` counts those away from the box's edges (a grid's inner rules; a frame, even a double one, has none).
 */
function longRuns(ink: Uint8Array, width: number, box: Box, fraction: number): { rows: number; cols: number; inner: number } {
  const w = box.x1 - box.x0;
  const h = box.y1 - box.y0;
  const colRun = new Int32Array(w);
  const colBest = new Int32Array(w);
  let rows = 0;
  let inner = 0;
  const isInner = (at: number, size: number) => at > 0.1 * size && at < 0.9 * size;
  let inRowLine = false;
  for (let y = box.y0; y < box.y1; y++) {
    let run = 0;
    let best = 0;
    for (let x = box.x0; x < box.x1; x++) {
      const on = ink[y * width + x] === 1;
      run = on ? run + 1 : 0;
      if (run > best) best = run;
      const c = x - box.x0;
      colRun[c] = on ? colRun[c]! + 1 : 0;
      if (colRun[c]! > colBest[c]!) colBest[c] = colRun[c]!;
    }
    // A thick rule spans several rows; count it once.
    const isLine = best >= fraction * w;
    if (isLine && !inRowLine) {
      rows++;
      if (isInner(y - box.y0, h)) inner++;
    }
    inRowLine = isLine;
  }
  let cols = 0;
  let inColLine = false;
  for (let c = 0; c < w; c++) {
    const isLine = colBest[c]! >= fraction * h;
    if (isLine && !inColLine) {
      cols++;
      if (isInner(c, w)) inner++;
    }
    inColLine = isLine;
  }
  return { rows, cols, inner };
}

/** The share of a box's ink within 8% of its shorter side from its edges. */
function edgeShare(ink: Uint8Array, width: number, box: Box): number {
  const m = Math.round(0.08 * Math.min(box.x1 - box.x0, box.y1 - box.y0));
  let edge = 0;
  let all = 0;
  for (let y = box.y0; y < box.y1; y++) {
    const nearRow = y < box.y0 + m || y >= box.y1 - m;
    for (let x = box.x0; x < box.x1; x++) {
      if (ink[y * width + x] !== 1) continue;
      all++;
      if (nearRow || x < box.x0 + m || x >= box.x1 - m) edge++;
    }
  }
  return all ? edge / all : 0;
}

/**
 * Groups components into text lines: neighbours that share most of their height and sit within a word gap,
 * cut again where they cross a column gutter narrower than that gap.
 */
function buildLines(comps: Component[], xh: number): Box[] {
  const order = comps.map((_, i) => i).sort((a, b) => comps[a]!.x0 - comps[b]!.x0);
  const uf = new UnionFind(comps.length);
  for (let a = 0; a < order.length; a++) {
    const ci = comps[order[a]!]!;
    const hi = ci.y1 - ci.y0;
    for (let b = a + 1; b < order.length; b++) {
      const cj = comps[order[b]!]!;
      const hj = cj.y1 - cj.y0;
      // A word space is about half a capital's height; a column gutter is several of them.
      const gapLimit = Math.max(1.5 * xh, 1.5 * Math.max(hi, hj));
      if (cj.x0 > ci.x1 + 12 * xh + 1.5 * hi) break;
      if (cj.x0 - ci.x1 > gapLimit) continue;
      if (verticalOverlap(ci, cj) >= 0.5 * Math.min(hi, hj)) uf.union(order[a]!, order[b]!);
    }
  }
  let lines = splitAtGutters(uf.groups(comps.length).map((g) => g.map((i) => comps[i]! as Box)), xh).map((g) => g.reduce(unionBox));
  // Drawings are not text: the model would write something for them.
  lines = lines.filter((b) => !isDottedRule(b, xh) && !isUprightStroke(b, xh));
  // Dots, accents and quotes that overlap no letter enough: attach them to the line they sit on or above.
  const tiny = (b: Box) => boxHeight(b) < 0.7 * xh;
  const big = lines.filter((b) => !tiny(b));
  const merged = big.map((b) => ({ ...b }));
  const leftovers: Box[] = [];
  for (const t of lines.filter(tiny)) {
    const cy = (t.y0 + t.y1) / 2;
    const host = merged.find((b) => cy >= b.y0 - 0.8 * xh && cy <= b.y1 + 0.3 * xh && t.x0 <= b.x1 + xh && t.x1 >= b.x0 - xh);
    if (host) Object.assign(host, unionBox(host, t));
    else leftovers.push(t);
  }
  // A lone speck is noise; a lone short stroke (a dash, a rule of a form) is still worth reading as a line.
  lines = [...merged, ...leftovers.filter((b) => boxWidth(b) >= xh)];
  return lines;
}

/** Cuts each line's glyphs into the columns of the gutters it crosses. */
function splitAtGutters(lines: Box[][], xh: number): Box[][] {
  const cuts = gutterCuts(lines, xh);
  return lines.flatMap((glyphs, i) => {
    const at = [...cuts[i]!].sort((a, b) => a - b);
    if (at.length === 0) return [glyphs];
    const columns = at.map((): Box[] => []).concat([[]]);
    for (const g of glyphs) columns[at.filter((x) => x < (g.x0 + g.x1) / 2).length]!.push(g);
    return columns.filter((c) => c.length > 0);
  });
}

/**
 * The usual blank space between consecutive lines of a paragraph on this page: the lower quartile of the
 * gap from each line to the nearest line below it in the same column. Leading varies from 1.0 to 1.5 between
 * documents, so block grouping is relative to it rather than to the line height alone.
 */
function typicalLineGap(sorted: Box[]): number {
  const gaps: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    for (let j = i + 1; j < sorted.length; j++) {
      const b = sorted[j]!;
      if (b.y0 <= a.y0 + 0.5 * boxHeight(a) || horizontalOverlap(a, b) < 0.4 * Math.min(boxWidth(a), boxWidth(b))) continue;
      gaps.push(Math.max(0, b.y0 - a.y1));
      break;
    }
  }
  const s = gaps.sort((x, y) => x - y);
  return s.length ? s[Math.floor(s.length / 4)]! : 0;
}

/** Groups lines into blocks: vertically adjacent, overlapping horizontally, of similar height. */
function buildBlocks(lines: Box[]): Box[][] {
  const sorted = [...lines].sort((a, b) => a.y0 - b.y0);
  const lineGap = typicalLineGap(sorted);
  const typicalHeight = Math.max(1, median(sorted.map(boxHeight)));
  const uf = new UnionFind(sorted.length);
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    const ha = boxHeight(a);
    for (let j = i + 1; j < sorted.length; j++) {
      const b = sorted[j]!;
      const hb = boxHeight(b);
      if (b.y0 - a.y1 > 3 * Math.max(ha, hb)) break;
      const gap = b.y0 - Math.max(a.y1, a.y0 + 1);
      const small = Math.min(ha, hb);
      // Leading scales with the font: a paragraph in a larger face has proportionally larger gaps.
      const limit = Math.min(1.5 * small, Math.max(0.5 * small, (1.3 * lineGap + 2) * Math.max(1, small / typicalHeight)));
      const ratio = Math.max(ha, hb) / Math.max(1, small);
      if (gap <= limit && gap > -0.5 * small && ratio <= 1.6
        && horizontalOverlap(a, b) >= 0.4 * Math.min(boxWidth(a), boxWidth(b))) {
        uf.union(i, j);
      }
    }
  }
  return uf.groups(sorted.length).map((g) => g.map((i) => sorted[i]!).sort((p, q) => p.y0 - q.y0 || p.x0 - q.x0));
}

/** A display formula stacks symbols: a thin bar with ink right above and below it (a fraction). */
function hasFractionBar(comps: Component[], box: Box, xh: number): boolean {
  const inside = comps.filter((c) => centreInside(c, box));
  for (const bar of inside) {
    const w = bar.x1 - bar.x0;
    const h = bar.y1 - bar.y0;
    if (h > Math.max(2, 0.25 * xh) || w < 1.2 * xh || w > 15 * xh) continue;
    const near = (c: Component) => c !== bar && horizontalOverlap(c, bar) > 0.3 * Math.min(w, c.x1 - c.x0) && c.y1 - c.y0 >= 0.5 * xh;
    const above = inside.some((c) => near(c) && c.y1 <= bar.y0 + 1 && bar.y0 - c.y1 < 0.6 * xh);
    const below = inside.some((c) => near(c) && c.y0 >= bar.y1 - 1 && c.y0 - bar.y1 < 0.6 * xh);
    if (above && below) return true;
  }
  return false;
}

/** Ink components worth laying out (specks dropped) and the page's glyph height. */
function inkComponents(ink: Uint8Array, width: number, height: number): { all: Component[]; xh: number } {
  const all = connectedComponents(ink, width, height).filter((c) => c.area >= 4 && (c.x1 - c.x0 > 2 || c.y1 - c.y0 > 2));
  const xh = Math.max(4, median(all.filter((c) => c.y1 - c.y0 >= 4 && c.y1 - c.y0 < height / 10).map((c) => c.y1 - c.y0)));
  return { all, xh };
}

/** A row of dots or dashes as long as a word: a dotted rule, a box drawn in dots, a receipt's separator. */
const isDottedRule = (b: Box, xh: number) => boxHeight(b) < 0.5 * xh && boxWidth(b) >= 4 * xh;
/** A lone upright stroke taller than any letter: a connector, a form's divider. */
const isUprightStroke = (b: Box, xh: number) => boxHeight(b) >= 2.5 * xh && boxWidth(b) <= 0.25 * boxHeight(b);
const isRule = (w: number, h: number, xh: number) => (w >= 8 * xh && h <= Math.max(3, 0.6 * xh)) || (w >= 4 * xh && w >= 20 * h);
const isLarge = (w: number, h: number, xh: number) => w > 6 * xh && h > 6 * xh;

/** A page known to be one table (a table crop): its grid, without looking for anything else. */
export function analyseTable(ink: Uint8Array, width: number, height: number): PageLayout {
  const { all, xh } = inkComponents(ink, width, height);
  const glyphs = all.filter((c) => {
    const w = c.x1 - c.x0;
    const h = c.y1 - c.y0;
    return !isRule(w, h, xh) && !isLarge(w, h, xh) && h <= 8 * xh;
  });
  const grid = tableGrid(glyphs, xh);
  return { blocks: [{ kind: 'table', box: { x0: 0, y0: 0, x1: width, y1: height }, lines: [], order: 0, grid }], charHeight: xh };
}

export function analyseLayout(ink: Uint8Array, width: number, height: number): PageLayout {
  const { all, xh } = inkComponents(ink, width, height);

  const tables: Box[] = [];
  const figures: Box[] = [];
  const rules: Component[] = [];
  const frames: Component[] = [];
  const textComps: Component[] = [];
  for (const c of all) {
    const w = c.x1 - c.x0;
    const h = c.y1 - c.y0;
    // A frame around the page (a form's outline, a scanner edge) or the desk around a photographed sheet (a
    // big dark shape near the image edge; near, as deskewing turns the corners white) is neither a table nor
    // a figure: what it encloses is laid out as if it were not there.
    const touchesEdge = c.x0 < 0.03 * width || c.y0 < 0.03 * height || c.x1 > 0.97 * width || c.y1 > 0.97 * height;
    if (w * h > 0.5 * width * height && (c.area < 0.1 * w * h || touchesEdge)) continue;
    if (isRule(w, h, xh)) {
      rules.push(c);
    } else if (isLarge(w, h, xh)) {
      const runs = longRuns(ink, width, c, 0.6);
      // A plain frame has rules only along its edges; a grid has inner ones too. Rules leave a grid mostly
      // paper; a shape mostly ink (a logo or banner with letters cut out of it has a long run on every row
      // between its letters) is a figure, not a table to read.
      const solid = c.area > 0.4 * w * h;
      // What flattening a grey band's paper leaves of it is its rim: a thick frame (a table's rules are thin),
      // the band's letters touching it and perhaps one inner run through them, most of its ink along its edges.
      const rim = () => runs.inner === 1 && c.area > 0.15 * w * h && edgeShare(ink, width, c) >= 0.5;
      if (!solid && runs.rows >= 2 && runs.cols >= 2 && (runs.inner === 0 || rim())) frames.push(c);
      else if (!solid && runs.rows >= 2 && runs.cols >= 2 && runs.rows + runs.cols >= 5) tables.push(c);
      else if (c.area / (w * h) > 0.02) figures.push(c);
    } else if (w > 0 && h <= 8 * xh) {
      textComps.push(c);
    }
  }
  // A frame around a chart (axes, curves: large shapes inside it) is the chart's; a frame around text (a boxed
  // paragraph, a slide's title box) is only a border, and its text is laid out as if it were not there.
  for (const f of frames) {
    if (all.some((c) => c !== f && isLarge(c.x1 - c.x0, c.y1 - c.y0, xh) && centreInside(c, f))) figures.push(f);
  }
  tables.push(...rulesTables(rules, xh));
  // A ruled cell inside a table is part of it.
  const outerTables = tables.filter((t) => !tables.some((o) => o !== t && centreInside(t, o) && boxArea(o) > boxArea(t)));
  const taken = [...outerTables, ...figures];
  const freeText = textComps.filter((c) => !taken.some((b) => centreInside(c, b)));

  let lines = buildLines(freeText, xh);
  const content = lines.length ? lines.reduce(unionBox) : { x0: 0, y0: 0, x1: width, y1: height };
  const unruled = unruledTables(lines, boxWidth(content));
  if (unruled.length) {
    outerTables.push(...unruled);
    lines = lines.filter((l) => !unruled.some((t) => centreInside(l, t)));
  }
  const blocks: LayoutBlock[] = [];
  const plain = (b: Box): Box => ({ x0: b.x0, y0: b.y0, x1: b.x1, y1: b.y1 });
  for (const t of outerTables) {
    const grid = tableGrid(textComps.filter((c) => centreInside(c, t)), xh);
    // Rules with no text between them are a drawing, nothing to read.
    if (grid.cells.length === 0) blocks.push({ kind: 'figure', box: plain(t), lines: [], order: null });
    else blocks.push({ kind: 'table', box: plain(t), lines: [], order: null, grid });
  }
  for (const f of figures) blocks.push({ kind: 'figure', box: plain(f), lines: [], order: null });
  const lineGroups = buildBlocks(lines);
  for (const group of lineGroups) {
    const box = group.reduce(unionBox);
    blocks.push({ kind: classifyTextBlock(group, box, freeText, xh, content, height, lineGroups), box, lines: group, order: null });
  }
  const ordered = readingOrder(blocks.map((b) => b.box), xh);
  let n = 0;
  for (const i of ordered) {
    const b = blocks[i]!;
    if (b.kind !== 'figure') b.order = n++;
  }
  blocks.sort((a, b) => (a.order ?? Infinity) - (b.order ?? Infinity));
  return { blocks, charHeight: xh };
}

/**
 * Tables without rules: three or more consecutive rows that each break into several short pieces (cells).
 * Text columns also break rows into pieces, but long ones, so pieces must be short against the page.
 */
function unruledTables(lines: Box[], contentWidth: number): Box[] {
  const rows: Box[][] = [];
  // Only short pieces can be cells; a text line beside a table must not join its rows.
  const short = lines.filter((l) => boxWidth(l) < 0.3 * contentWidth);
  for (const l of short.sort((a, b) => (a.y0 + a.y1) - (b.y0 + b.y1))) {
    const row = rows[rows.length - 1];
    const first = row?.[0];
    if (row && first && verticalOverlap(first, l) >= 0.5 * Math.min(boxHeight(first), boxHeight(l))) row.push(l);
    else rows.push([l]);
  }
  const isCellRow = (r: Box[]) => r.length >= 3 && median(r.map(boxWidth)) < 0.22 * contentWidth;
  const out: Box[] = [];
  let run: Box[][] = [];
  const flush = () => {
    // Cells line up in columns down the table; a short line of a neighbouring text column that happens to
    // share a row with it does not, so only pieces whose column recurs in most rows make up the table.
    const kept = run.flat().filter((p) => run.filter((row) => row.some((q) => horizontalOverlap(p, q) > 0)).length >= 0.5 * run.length);
    if (run.length >= 3 && kept.length >= 6) out.push(kept.reduce(unionBox));
    run = [];
  };
  for (const r of rows) {
    const box = r.reduce(unionBox);
    const prev = run.length ? run[run.length - 1]!.reduce(unionBox) : null;
    const continues = prev !== null && box.y0 - prev.y1 <= 2.5 * boxHeight(prev) && horizontalOverlap(box, prev) >= 0.5 * Math.min(boxWidth(box), boxWidth(prev));
    if (isCellRow(r) && (continues || run.length === 0)) run.push(r);
    else {
      flush();
      if (isCellRow(r)) run.push(r);
    }
  }
  flush();
  return out;
}

/** Tables drawn with horizontal rules only (booktabs style): three or more stacked rules of similar extent. */
function rulesTables(rules: Component[], xh: number): Box[] {
  const sorted = [...rules].sort((a, b) => a.y0 - b.y0);
  const used = new Set<number>();
  const out: Box[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (used.has(i)) continue;
    const group = [i];
    let last = sorted[i]!;
    for (let j = i + 1; j < sorted.length; j++) {
      const r = sorted[j]!;
      if (r.y0 - last.y1 > 25 * xh) break;
      const same = horizontalOverlap(r, last) >= 0.8 * Math.max(r.x1 - r.x0, last.x1 - last.x0);
      if (same) {
        group.push(j);
        last = r;
      }
    }
    if (group.length >= 3) {
      group.forEach((g) => used.add(g));
      out.push(group.map((g) => sorted[g]! as Box).reduce(unionBox));
    }
  }
  return out;
}

function classifyTextBlock(lines: Box[], box: Box, comps: Component[], xh: number, content: Box, pageHeight: number, all: Box[][]): BlockKind {
  const lineH = median(lines.map(boxHeight));
  const bodyLineH = median(all.flat().map(boxHeight));
  const margin = 0.07 * pageHeight;
  const others = all.filter((g) => g !== lines).map((g) => g.reduce(unionBox));
  const isolatedAbove = others.every((o) => o.y1 <= box.y0 || o.y0 - box.y1 >= 1.5 * bodyLineH);
  const isolatedBelow = others.every((o) => o.y0 >= box.y1 || box.y0 - o.y1 >= 1.5 * bodyLineH);
  if (lines.length <= 2 && box.y1 < margin && isolatedAbove && others.length > 2) return 'header';
  if (lines.length <= 2 && box.y0 > pageHeight - margin && isolatedBelow && others.length > 2) return 'footer';
  if (lines.length <= 5 && boxWidth(box) < 0.85 * boxWidth(content) && hasFractionBar(comps, box, xh)) return 'formula';
  if (lines.length <= 3 && lineH >= 1.35 * bodyLineH) return 'title';
  return 'text';
}
