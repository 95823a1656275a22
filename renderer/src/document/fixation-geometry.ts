// Where a fixation lies on the page. The engine reports indices over a crop's merged token grid (rows x
// cols, row-major); the crop is a box of the page resized, so cell (r, c) covers the matching fraction of the
// box in page pixels. The box is the fixation's own frame where the pipeline read the region as several
// crops, else the region's box. A crop of a turned line runs along its text: its columns follow the frame's
// angle, and its cells are turned back onto the page.
import type { Fixation } from '../../../common/engine-types';
import type { Box } from '../../../common/protocol';
import { quarterTurns, turnBox } from '../../../common/quarter-turns';

export interface HeatCell {
  x: number;
  y: number;
  w: number;
  h: number;
  weight: number;
}

export function fixationCells(regionBox: Box, regionGrid: { rows: number; cols: number }, fixation: Fixation): HeatCell[] {
  const turns = quarterTurns(fixation.frame?.angle ?? 0);
  const box = turnBox(fixation.frame?.box ?? regionBox, turns);
  const grid = fixation.frame ?? regionGrid;
  const w = (box.x1 - box.x0) / grid.cols;
  const h = (box.y1 - box.y0) / grid.rows;
  const cells: HeatCell[] = [];
  fixation.indices.forEach((index, k) => {
    if (index < 0 || index >= grid.rows * grid.cols) return;
    const row = Math.floor(index / grid.cols);
    const col = index % grid.cols;
    const x0 = box.x0 + col * w;
    const y0 = box.y0 + row * h;
    const cell = turnBox({ x0, y0, x1: x0 + w, y1: y0 + h }, (4 - turns) % 4);
    cells.push({ x: cell.x0, y: cell.y0, w: cell.x1 - cell.x0, h: cell.y1 - cell.y0, weight: fixation.weights[k] ?? 0 });
  });
  return cells;
}

/** The attention-weighted centre of a fixation in page pixels; null when it holds no weight. */
export function fixationCentre(box: Box, grid: { rows: number; cols: number }, fixation: Fixation): { x: number; y: number } | null {
  let sx = 0;
  let sy = 0;
  let total = 0;
  for (const c of fixationCells(box, grid, fixation)) {
    sx += (c.x + c.w / 2) * c.weight;
    sy += (c.y + c.h / 2) * c.weight;
    total += c.weight;
  }
  return total > 0 ? { x: sx / total, y: sy / total } : null;
}

/** Sums several fixations cell by cell (hovering or selecting a span of text), normalised to a peak of 1. */
export function mergeCells(cellLists: HeatCell[][]): HeatCell[] {
  const merged = new Map<string, HeatCell>();
  for (const cells of cellLists) {
    for (const c of cells) {
      const key = `${c.x},${c.y},${c.w},${c.h}`;
      const m = merged.get(key);
      if (m) m.weight += c.weight;
      else merged.set(key, { ...c });
    }
  }
  const out = [...merged.values()];
  const peak = Math.max(0, ...out.map((c) => c.weight));
  return peak > 0 ? out.map((c) => ({ ...c, weight: c.weight / peak })) : out;
}
