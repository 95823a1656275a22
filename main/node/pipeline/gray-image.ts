// The one raster type of the pipeline: 8-bit grayscale, row-major, the form the engine takes (RegionInput).
import type { Box } from '../../../common/protocol';

export interface GrayImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** The count of each grey level, over every `step`-th pixel. */
export function histogram(data: Uint8Array, step = 1): Uint32Array {
  const h = new Uint32Array(256);
  for (let i = 0; i < data.length; i += step) h[data[i]!]!++;
  return h;
}

/** The grey level below which more than the share `q` of a histogram's pixels lie. */
export function percentile(h: Uint32Array, q: number): number {
  let n = 0;
  for (let v = 0; v < 256; v++) n += h[v]!;
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    acc += h[v]!;
    if (acc > q * n) return v;
  }
  return 255;
}

/** Otsu's threshold: the grey level that best splits a histogram into ink (at or below it) and paper. */
export function otsuThreshold(h: Uint32Array): number {
  let n = 0;
  let sum = 0;
  for (let v = 0; v < 256; v++) {
    n += h[v]!;
    sum += v * h[v]!;
  }
  let wB = 0;
  let sumB = 0;
  let best = -1;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    wB += h[t]!;
    if (wB === 0) continue;
    const wF = n - wB;
    if (wF === 0) break;
    sumB += t * h[t]!;
    const between = wB * wF * (sumB / wB - (sum - sumB) / wF) ** 2;
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  return threshold;
}

export function blankImage(width: number, height: number, value = 255): GrayImage {
  return { width, height, data: new Uint8Array(width * height).fill(value) };
}

export function clampBox(box: Box, width: number, height: number): Box {
  return {
    x0: Math.max(0, Math.min(width, Math.floor(box.x0))),
    y0: Math.max(0, Math.min(height, Math.floor(box.y0))),
    x1: Math.max(0, Math.min(width, Math.ceil(box.x1))),
    y1: Math.max(0, Math.min(height, Math.ceil(box.y1))),
  };
}

/** Copies a box (grown by `pad` pixels, clipped to the image) into a new image. */
export function cropImage(img: GrayImage, box: Box, pad = 0): GrayImage {
  const b = clampBox({ x0: box.x0 - pad, y0: box.y0 - pad, x1: box.x1 + pad, y1: box.y1 + pad }, img.width, img.height);
  const w = Math.max(1, b.x1 - b.x0);
  const h = Math.max(1, b.y1 - b.y0);
  const out = blankImage(w, h);
  for (let y = 0; y < h && b.y0 + y < img.height; y++) {
    const src = (b.y0 + y) * img.width + b.x0;
    out.data.set(img.data.subarray(src, src + Math.min(w, img.width - b.x0)), y * w);
  }
  return out;
}

/** The middle value (the upper one of an even count); 0 for none. */
export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function boxWidth(b: Box): number {
  return b.x1 - b.x0;
}

export function boxHeight(b: Box): number {
  return b.y1 - b.y0;
}

export function unionBox(a: Box, b: Box): Box {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
}

export function intersectionArea(a: Box, b: Box): number {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}

export function boxArea(b: Box): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}
