// Text lines from the detector's probability map (DBNet, Liao et al. 2020, as PaddleOCR post-processes it): the
// map thresholded, each connected region scored by the mean probability inside its outline, and its smallest
// rotated rectangle grown back by the "unclip" offset, since the network was trained to mark a text line's kernel
// shrunk by a fixed ratio of its area to its perimeter. The three constants are PaddleOCR's own inference
// defaults for this network (tools/infer/utility.py: det_db_thresh 0.3, det_db_box_thresh 0.6,
// det_db_unclip_ratio 1.5), not fitted to any page here. The score is PaddleOCR's "slow" mode (the region's
// outline), not its default "fast" one (the rectangle): a line whose rectangle takes in the tips of its quote
// marks or accents is mostly empty rows there, and on typescripts with tight line spacing such lines scored
// under the bar and were lost whole.
import { minAreaRect, type Point, type RotatedBox } from './rotated-box';

const DB_THRESHOLD = 0.3;
const DB_BOX_SCORE = 0.6;
const DB_UNCLIP = 1.5;
/** PaddleOCR drops regions whose shorter side is under 3 pixels of the map, and lines under 5 once grown. */
const MIN_SIDE = 3;

export interface DetectedLine {
  /** In the probability map's pixels; width along the line. */
  box: RotatedBox;
  /** Mean probability inside the (shrunk) rectangle. */
  score: number;
}

interface Region {
  /** Per run of the region: its two ends on the row's top and bottom edges, for its hull. */
  points: Point[];
  area: number;
  /** Per row the region touches: its leftmost pixel and its rightmost one (exclusive), its outline on that row. */
  rows: Map<number, [number, number]>;
}

/** 8-connected regions of `prob > threshold`, found run by run (one pass and a union-find over runs). */
function regions(prob: Float32Array, width: number, height: number, threshold: number): Region[] {
  const runStart: number[] = [];
  const runEnd: number[] = [];
  const runRow: number[] = [];
  const parent: number[] = [];
  const find = (a: number): number => {
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]!]!;
      a = parent[a]!;
    }
    return a;
  };
  let prevFirst = 0;
  let prevLast = 0;
  for (let y = 0; y < height; y++) {
    const first = runStart.length;
    const row = y * width;
    let scan = prevFirst;
    let x = 0;
    while (x < width) {
      if (!(prob[row + x]! > threshold)) {
        x++;
        continue;
      }
      const s = x;
      while (x < width && prob[row + x]! > threshold) x++;
      const id = runStart.length;
      runStart.push(s);
      runEnd.push(x);
      runRow.push(y);
      parent.push(id);
      while (scan < prevLast && runEnd[scan]! < s) scan++;
      for (let p = scan; p < prevLast && runStart[p]! <= x; p++) {
        const ra = find(p);
        const rb = find(id);
        if (ra !== rb) parent[rb] = ra;
      }
    }
    prevFirst = first;
    prevLast = runStart.length;
  }
  const byRoot = new Map<number, Region>();
  for (let r = 0; r < runStart.length; r++) {
    const root = find(r);
    let reg = byRoot.get(root);
    if (!reg) byRoot.set(root, (reg = { points: [], area: 0, rows: new Map() }));
    const y = runRow[r]!;
    // Pixel corners, so that a one-pixel-high run still has a height.
    reg.points.push([runStart[r]!, y], [runEnd[r]!, y], [runStart[r]!, y + 1], [runEnd[r]!, y + 1]);
    reg.area += runEnd[r]! - runStart[r]!;
    const row = reg.rows.get(y);
    reg.rows.set(y, row ? [Math.min(row[0], runStart[r]!), Math.max(row[1], runEnd[r]!)] : [runStart[r]!, runEnd[r]!]);
  }
  return [...byRoot.values()];
}

/** Mean of the map inside the region's outline, row by row (the gaps between its runs on a row included). */
function meanInOutline(prob: Float32Array, width: number, reg: Region): number {
  let sum = 0;
  let n = 0;
  for (const [y, [x0, x1]] of reg.rows) {
    for (let x = x0; x < x1; x++) sum += prob[y * width + x]!;
    n += x1 - x0;
  }
  return n ? sum / n : 0;
}

/** The detector's lines in the map's pixels, grown to the text's full extent. */
export function linesFromProbability(prob: Float32Array, width: number, height: number): DetectedLine[] {
  const out: DetectedLine[] = [];
  for (const reg of regions(prob, width, height, DB_THRESHOLD)) {
    if (reg.area < MIN_SIDE * MIN_SIDE) continue;
    const box = minAreaRect(reg.points);
    if (Math.min(box.width, box.height) < MIN_SIDE) continue;
    const score = meanInOutline(prob, width, reg);
    if (score < DB_BOX_SCORE) continue;
    // Offsetting a rectangle by d (round joins) and taking the smallest rectangle again grows each side by 2d.
    const d = (box.width * box.height * DB_UNCLIP) / (2 * (box.width + box.height));
    const grown = { ...box, width: box.width + 2 * d, height: box.height + 2 * d };
    if (grown.height < MIN_SIDE + 2) continue;
    out.push({ box: grown, score });
  }
  return out;
}
