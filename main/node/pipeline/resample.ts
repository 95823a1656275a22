// Resampling and smoothing of grayscale crops, separable in x and y. Shrinking averages the exact source
// footprint of each output pixel (area weights), so thin strokes fade rather than vanish; enlarging is
// bilinear with half-pixel centres, as the engine's own preprocessing.
import type { GrayImage } from './gray-image';

/** Per output pixel: first source index and the weights of consecutive source pixels. */
interface Taps {
  start: Int32Array;
  weights: Float32Array[];
}

function taps(src: number, dst: number): Taps {
  const scale = src / dst;
  const start = new Int32Array(dst);
  const weights: Float32Array[] = [];
  for (let i = 0; i < dst; i++) {
    if (scale > 1) {
      const a = i * scale;
      const b = a + scale;
      const first = Math.floor(a);
      const last = Math.min(src - 1, Math.ceil(b) - 1);
      const w = new Float32Array(last - first + 1);
      for (let j = first; j <= last; j++) w[j - first] = (Math.min(b, j + 1) - Math.max(a, j)) / scale;
      start[i] = first;
      weights.push(w);
    } else {
      const x = Math.min(src - 1, Math.max(0, (i + 0.5) * scale - 0.5));
      const first = Math.min(src - 1, Math.floor(x));
      const f = x - first;
      start[i] = first;
      weights.push(first + 1 < src ? Float32Array.of(1 - f, f) : Float32Array.of(1));
    }
  }
  return { start, weights };
}

/** Resamples to exactly width x height. */
export function resample(img: GrayImage, width: number, height: number): GrayImage {
  if (width === img.width && height === img.height) return img;
  const tx = taps(img.width, width);
  const ty = taps(img.height, height);
  const rows = new Float32Array(width * img.height);
  for (let y = 0; y < img.height; y++) {
    const row = y * img.width;
    for (let x = 0; x < width; x++) {
      const w = tx.weights[x]!;
      let s = 0;
      for (let k = 0; k < w.length; k++) s += w[k]! * img.data[row + tx.start[x]! + k]!;
      rows[y * width + x] = s;
    }
  }
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const w = ty.weights[y]!;
    for (let x = 0; x < width; x++) {
      let s = 0;
      for (let k = 0; k < w.length; k++) s += w[k]! * rows[(ty.start[y]! + k) * width + x]!;
      data[y * width + x] = Math.round(s);
    }
  }
  return { width, height, data };
}

/** A 3x3 Gaussian of the given sigma; borders mirrored without repeating the edge pixel. */
export function gaussianBlur3(img: GrayImage, sigma: number): GrayImage {
  const side = Math.exp(-1 / (2 * sigma * sigma));
  const norm = 1 + 2 * side;
  const a = side / norm;
  const c = 1 / norm;
  const { width, height } = img;
  const at = (i: number, n: number) => (n === 1 ? 0 : i < 0 ? 1 : i >= n ? n - 2 : i);
  const rows = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const r = y * width;
    for (let x = 0; x < width; x++) {
      rows[r + x] = c * img.data[r + x]! + a * (img.data[r + at(x - 1, width)]! + img.data[r + at(x + 1, width)]!);
    }
  }
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const up = at(y - 1, height) * width;
    const down = at(y + 1, height) * width;
    for (let x = 0; x < width; x++) data[y * width + x] = Math.round(c * rows[y * width + x]! + a * (rows[up + x]! + rows[down + x]!));
  }
  return { width, height, data };
}
