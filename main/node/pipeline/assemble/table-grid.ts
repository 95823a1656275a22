// A table's rows and columns from where its words sit, so each cell can be read as one text line and the
// table rebuilt as HTML around the cells' text. Rows are bands of glyphs; columns are the strips that stay
// blank down (nearly) every row. A piece of text that crosses such a strip spans those columns.
import type { Box } from '../../../../common/protocol';
import { boxHeight, unionBox } from '../gray-image';

export interface TableCell {
  row: number;
  col: number;
  colSpan: number;
  /** The cell's text lines, top to bottom, each a crop the recogniser reads (a wrapped cell has several). */
  lines: Box[];
}

export interface TableGrid {
  rows: number;
  cols: number;
  /** Cells that hold ink, row by row, left to right; every other grid position is an empty cell. */
  cells: TableCell[];
}

interface Band {
  y0: number;
  y1: number;
  glyphs: Box[];
}

/**
 * `glyphs` are the ink components inside the table (rules and frames left out); `xh` is the page's glyph
 * height. Each glyph is widened by 0.3 letter heights, which fills word spaces; a column gap is a strip
 * still at least half a letter wide that is blank on nearly every row (columnCuts): word spaces fall at
 * different places row by row, column gaps do not.
 */
export function tableGrid(glyphs: readonly Box[], xh: number): TableGrid {
  const bands = rowBands(glyphs, xh);
  if (bands.length === 0) return { rows: 0, cols: 0, cells: [] };
  const letter = letterHeight(bands, xh);
  const cuts = columnCuts(bands, letter);
  const gaps = bands.slice(1).map((b, i) => b.y0 - bands[i]!.y1).sort((a, b) => a - b);
  const rowGap = gaps.length ? gaps[gaps.length >> 1]! : 0;
  const rows: TableCell[][] = [];
  let last: Band | null = null;
  for (const band of bands) {
    const pieces = bandPieces(band, cuts, letter);
    const row = rows[rows.length - 1];
    const gap = last ? band.y0 - last.y1 : 0;
    // The same row when the bands overlap (cells set at different heights beside a wrapped one), or when a
    // band closer than half the usual row gap has text only in columns the row already fills (wrapped cells).
    const continues = row && (gap < 0 || (gap <= 0.5 * rowGap && pieces.every((p) => row.some((c) => c.col === p.col))));
    if (row && continues) {
      for (const p of pieces) {
        const cell = row.find((c) => c.col === p.col) ?? row.find((c) => p.col < c.col + c.colSpan && c.col < p.col + p.colSpan);
        if (cell) cell.lines.push(...p.lines);
        else row.push({ row: rows.length - 1, col: p.col, colSpan: p.colSpan, lines: p.lines });
      }
      row.sort((a, b) => a.col - b.col);
    } else {
      rows.push(pieces.map((p) => ({ row: rows.length, col: p.col, colSpan: p.colSpan, lines: p.lines })));
    }
    last = band;
  }
  return { rows: rows.length, cols: cuts.length + 1, cells: rows.flat() };
}

/**
 * A band's glyphs grouped into pieces between column cuts; a piece that crosses a cut spans those columns.
 * Within a piece, a gap wider than a word space (1.5 letters, as between the lines of running text) starts a
 * new line crop of the same cell: a form's label and value, or fields the column cuts could not separate
 * because other rows fill the gap between them, are read as the short lines they are.
 */
function bandPieces(band: Band, cuts: number[], letter: number): Array<{ col: number; colSpan: number; lines: Box[] }> {
  const pieces: Array<{ col: number; colSpan: number; lines: Box[] }> = [];
  let lines: Box[] = [];
  const close = () => {
    if (lines.length === 0) return;
    const x0 = lines[0]!.x0;
    const x1 = lines[lines.length - 1]!.x1;
    const col = cuts.filter((c) => c < x0).length;
    const end = cuts.filter((c) => c < x1).length;
    pieces.push({ col, colSpan: end - col + 1, lines });
    lines = [];
  };
  for (const g of [...band.glyphs].sort((a, b) => a.x0 - b.x0)) {
    const last = lines[lines.length - 1];
    if (last && cuts.some((c) => c >= last.x1 && c <= g.x0)) close();
    const open = lines[lines.length - 1];
    if (open && g.x0 - open.x1 <= 1.5 * letter) lines[lines.length - 1] = unionBox(open, g);
    else lines.push({ ...g });
  }
  close();
  return pieces;
}

/**
 * Bands of letter-sized glyphs that share their height; dots, commas and dashes join the band they sit in.
 * Anything taller than a letter (a form's short vertical rule, a stamp) would bind several rows into one.
 */
function rowBands(glyphs: readonly Box[], xh: number): Band[] {
  const core = glyphs.filter((g) => boxHeight(g) >= 0.5 * xh && boxHeight(g) <= 2.5 * xh).sort((a, b) => a.y0 - b.y0);
  const bands: Band[] = [];
  for (const g of core) {
    const h = boxHeight(g);
    const home = bands.slice(-2).find((b) => Math.min(b.y1, g.y1) - Math.max(b.y0, g.y0) >= 0.5 * Math.min(h, b.y1 - b.y0));
    if (home) {
      home.y0 = Math.min(home.y0, g.y0);
      home.y1 = Math.max(home.y1, g.y1);
      home.glyphs.push(g);
    } else {
      bands.push({ y0: g.y0, y1: g.y1, glyphs: [g] });
    }
  }
  // A dashed rule between rows is a row of small marks that belongs to no band: it is dropped with them.
  for (const g of glyphs) {
    if (boxHeight(g) >= 0.5 * xh) continue;
    const cy = (g.y0 + g.y1) / 2;
    bands.find((b) => cy >= b.y0 - 0.2 * xh && cy <= b.y1 + 0.2 * xh)?.glyphs.push(g);
  }
  return bands.sort((a, b) => a.y0 - b.y0);
}

/** The page's glyph height is a median over every speck; the table's own letters set its word space. */
function letterHeight(bands: Band[], xh: number): number {
  const heights = bands.flatMap((b) => b.glyphs).map(boxHeight).filter((h) => h >= 0.5 * xh).sort((a, b) => a - b);
  return Math.max(xh, heights[Math.floor(0.75 * (heights.length - 1))] ?? xh);
}

/** Column boundaries: the middle of every strip left blank by nearly every row (word spaces filled). */
function columnCuts(bands: Band[], letter: number): number[] {
  const all = bands.flatMap((b) => b.glyphs);
  const left = Math.min(...all.map((g) => g.x0));
  const right = Math.max(...all.map((g) => g.x1));
  const width = right - left;
  const pad = Math.max(1, Math.round(0.3 * letter));
  const coverage = new Int32Array(width);
  const mark = new Uint8Array(width);
  for (const band of bands) {
    mark.fill(0);
    for (const g of band.glyphs) mark.fill(1, Math.max(0, g.x0 - pad - left), Math.min(width, g.x1 + pad - left));
    for (let x = 0; x < width; x++) coverage[x]! += mark[x]!;
  }
  // One row in a small table, 15% in a larger one, may cross a column gap: a title or group heading spanning columns.
  const allowance = bands.length >= 4 ? Math.max(1, Math.floor(0.15 * bands.length)) : 0;
  const cuts: number[] = [];
  let start = -1;
  for (let x = 0; x <= width; x++) {
    const open = x < width && coverage[x]! <= allowance;
    if (open && start < 0) start = x;
    else if (!open && start >= 0) {
      // Strips at the table's edges are margin, not a boundary between columns; a strip narrower than half a
      // letter once word spaces are filled is a wide word space that happens to recur (rows that all start
      // "Number of samples ...").
      if (start > 0 && x < width && x - start >= 0.5 * letter) cuts.push(left + (start + x) / 2);
      start = -1;
    }
  }
  return cuts;
}
