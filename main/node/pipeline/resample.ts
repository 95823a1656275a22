// Resampling and smoothing of grayscale crops, separable in x and y. Shrinking averages the exact source
// footprint of each output pixel (area weights), so thin strokes fade rather than vanish; enlarging is
// bilinear with half-pixel centres, as the engine's own preprocessing. Every line of a page passes through here
// once per view, so the pixels are worked in the native library (native/src/page/gray_image.h), in the
// arithmetic these comments describe: x then y, through float rows, sums in doubles, halves rounded up.
import { loadAddon } from '../engine/native-addon';
import type { GrayImage } from './gray-image';

/** Resamples to exactly width x height. */
export function resample(img: GrayImage, width: number, height: number): GrayImage {
  if (width === img.width && height === img.height) return img;
  return loadAddon().resampleGray(img, width, height);
}

/** A 3x3 Gaussian of the given sigma; borders mirrored without repeating the edge pixel. */
export function gaussianBlur3(img: GrayImage, sigma: number): GrayImage {
  const side = Math.exp(-1 / (2 * sigma * sigma));
  const norm = 1 + 2 * side;
  return loadAddon().blur3Gray(img, 1 / norm, side / norm);
}
