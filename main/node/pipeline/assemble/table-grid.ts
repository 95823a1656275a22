// A table's rows and columns from where its text lies (the detector's line boxes inside it), so that each cell
// can be read as text lines and the table rebuilt as HTML around the cells' text. Rows are bands of boxes that
// share their height; columns are the strips that stay blank down (nearly) every row. A box that crosses such
// a strip spans those columns. Shading, colour and rules play no part: the detector found the text through them.
import type { Box } from '../../../../common/protocol';
import { boxHeight, median } from '../gray-image';

export interface TableCell<L extends Box = Box> {
  row: number;
  col: number;
  colSpan: number;
  /** The cell's text lines: each a box the detector found, rows top to bottom, left to right within a row. */
  lines: L[];
}

export interface TableGrid<L extends Box = Box> {
  rows: number;
  cols: number;
  /** Cells that hold text, row by row, left to right; every other grid position is an empty cell. */
  cells: Array<TableCell<L>>;
}

interface Band<L extends Box> {
  y0: number;
  y1: number;
  boxes: L[];
}

/**
 * `lines` are the text boxes inside the table. Each is widened by 0.3 of the text height, which fills the
 * word spaces the detector may have cut a cell's text at; a column gap is a strip still at least half the text
 * height wide that is blank on nearly every row (columnCuts): word spaces fall at different places row by row,
 * column gaps do not.
 */
export function tableGrid<L extends Box>(lines: readonly L[]): TableGrid<L> {
  if (lines.length === 0) return { rows: 0, cols: 0, cells: [] };
  const text = Math.max(1, median(lines.map(boxHeight)));
  const bands = rowBands(lines);
  const cuts = columnCuts(bands, text);
  const gaps = bands.slice(1).map((b, i) => b.y0 - bands[i]!.y1).sort((a, b) => a - b);
  const rowGap = gaps.length ? gaps[gaps.length >> 1]! : 0;
  const rows: Array<Array<TableCell<L>>> = [];
  let last: Band<L> | null = null;
  for (const band of bands) {
    const pieces = bandPieces(band, cuts);
    const row = rows[rows.length - 1];
    const gap = last ? band.y0 - last.y1 : Infinity;
    // A band continues the row as a cell's next line when it is closer than half the usual gap between bands
    // and holds text in at most half the row's columns, all of them columns the row fills (in a dense table
    // rows touch as closely as a wrapped cell's lines, and only the columns tell them apart); or as a cell set
    // at mid-height beside a wrapped one when it overlaps the row's last band by more than a quarter of the text.
    const wrapped = row && gap <= 0.5 * rowGap && 2 * pieces.length <= row.length && pieces.every((p) => row.some((c) => c.col === p.col));
    const beside = row && gap < -0.25 * text;
    if (row && (wrapped || beside)) {
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

/** A band's boxes grouped by the columns they fall in; a box that crosses a cut spans those columns. */
function bandPieces<L extends Box>(band: Band<L>, cuts: number[]): Array<{ col: number; colSpan: number; lines: L[] }> {
  const pieces: Array<{ col: number; colSpan: number; lines: L[] }> = [];
  for (const b of [...band.boxes].sort((p, q) => p.x0 - q.x0)) {
    const col = cuts.filter((c) => c < b.x0).length;
    const end = cuts.filter((c) => c < b.x1).length;
    const open = pieces[pieces.length - 1];
    // Boxes between the same cuts are one cell: a detector may cut a cell's text at a wide space.
    if (open && col <= open.col + open.colSpan - 1) {
      open.colSpan = Math.max(open.colSpan, end - open.col + 1);
      open.lines.push(b);
    } else pieces.push({ col, colSpan: end - col + 1, lines: [b] });
  }
  return pieces;
}

/** Bands of boxes that share half their height, top to bottom. */
function rowBands<L extends Box>(lines: readonly L[]): Array<Band<L>> {
  const bands: Array<Band<L>> = [];
  for (const b of [...lines].sort((p, q) => p.y0 - q.y0)) {
    const h = boxHeight(b);
    const home = bands.slice(-2).find((band) => Math.min(band.y1, b.y1) - Math.max(band.y0, b.y0) >= 0.5 * Math.min(h, band.y1 - band.y0));
    if (home) {
      home.y0 = Math.min(home.y0, b.y0);
      home.y1 = Math.max(home.y1, b.y1);
      home.boxes.push(b);
    } else {
      bands.push({ y0: b.y0, y1: b.y1, boxes: [b] });
    }
  }
  return bands;
}

/** Column boundaries: the middle of every strip left blank by nearly every row (word spaces filled). */
function columnCuts<L extends Box>(bands: Array<Band<L>>, text: number): number[] {
  const all = bands.flatMap((b) => b.boxes);
  const left = Math.floor(Math.min(...all.map((g) => g.x0)));
  const right = Math.ceil(Math.max(...all.map((g) => g.x1)));
  const width = right - left;
  const pad = Math.max(1, Math.round(0.3 * text));
  const coverage = new Int32Array(width);
  const mark = new Uint8Array(width);
  for (const band of bands) {
    mark.fill(0);
    for (const g of band.boxes) mark.fill(1, Math.max(0, Math.floor(g.x0) - pad - left), Math.min(width, Math.ceil(g.x1) + pad - left));
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
      // Strips at the table's edges are margin, not a boundary between columns; a strip narrower than half the
      // text height once word spaces are filled is a wide word space that happens to recur.
      if (start > 0 && x < width && x - start >= 0.5 * text) cuts.push(left + (start + x) / 2);
      start = -1;
    }
  }
  return cuts;
}
