// Reading-order edit distance (OmniDocBench's idea): match each ground-truth block to the predicted region
// that covers most of it, list the ground-truth blocks in predicted order, and take the normalised edit
// distance to the ground-truth order. Blocks no prediction covers are left out and counted separately.
// Several ground-truth blocks in one predicted region are read as a reader of that region would: line by
// line, top to bottom, so one region spanning two columns earns no credit for their order.
import type { Box } from '../../../common/protocol';
import { normalisedEditDistance } from './text-metrics';

function overlap(a: Box, b: Box): number {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}

export interface ReadingOrderScore {
  edit: number;
  matched: number;
  total: number;
}

/** `predicted` lists region boxes in predicted reading order. */
export function readingOrderEdit(truth: Box[], predicted: Box[]): ReadingOrderScore {
  const rank: Array<{ gt: number; pred: number; y: number; x: number }> = [];
  truth.forEach((t, gt) => {
    let best = -1;
    let bestArea = 0;
    predicted.forEach((p, k) => {
      const a = overlap(t, p);
      if (a > bestArea) [best, bestArea] = [k, a];
    });
    const area = (t.x1 - t.x0) * (t.y1 - t.y0);
    if (best >= 0 && bestArea >= 0.1 * area) rank.push({ gt, pred: best, y: t.y0, x: t.x0 });
  });
  const predictedOrder = [...rank].sort((a, b) => a.pred - b.pred || a.y - b.y || a.x - b.x).map((r) => r.gt);
  const truthOrder = rank.map((r) => r.gt);
  return { edit: normalisedEditDistance(predictedOrder, truthOrder), matched: rank.length, total: truth.length };
}
