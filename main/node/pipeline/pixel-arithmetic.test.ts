// The native pixel work (native/src/page/gray_image.h) against the arithmetic resample.ts and page-frame.ts
// describe, written here plainly in TypeScript as the pipeline ran it before the pixels moved to the native
// library: byte for byte, on random images, at shrinking, enlarging and odd sizes, rectangles at any angle and
// partly off the page. Pages must read the same as before, so nothing here is "close enough".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sampleRotated } from './detect/page-frame';
import type { RotatedBox } from './detect/rotated-box';
import type { GrayImage } from './gray-image';
import { gaussianBlur3, resample } from './resample';

function footprint(src: number, dst: number): Array<{ first: number; w: Float32Array }> {
  const scale = src / dst;
  return Array.from({ length: dst }, (_, i) => {
    if (scale > 1) {
      const a = i * scale;
      const b = a + scale;
      const first = Math.floor(a);
      const last = Math.min(src - 1, Math.ceil(b) - 1);
      const w = new Float32Array(last - first + 1);
      for (let j = first; j <= last; j++) w[j - first] = (Math.min(b, j + 1) - Math.max(a, j)) / scale;
      return { first, w };
    }
    const x = Math.min(src - 1, Math.max(0, (i + 0.5) * scale - 0.5));
    const first = Math.min(src - 1, Math.floor(x));
    const f = x - first;
    return { first, w: first + 1 < src ? Float32Array.of(1 - f, f) : Float32Array.of(1) };
  });
}

function referenceResample(img: GrayImage, width: number, height: number): GrayImage {
  const tx = footprint(img.width, width);
  const ty = footprint(img.height, height);
  const rows = new Float32Array(width * img.height);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0;
      tx[x]!.w.forEach((w, k) => (s += w * img.data[y * img.width + tx[x]!.first + k]!));
      rows[y * width + x] = s;
    }
  }
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let s = 0;
      ty[y]!.w.forEach((w, k) => (s += w * rows[(ty[y]!.first + k) * width + x]!));
      data[y * width + x] = Math.round(s);
    }
  }
  return { width, height, data };
}

function referenceBlur(img: GrayImage, sigma: number): GrayImage {
  const side = Math.exp(-1 / (2 * sigma * sigma));
  const a = side / (1 + 2 * side);
  const c = 1 / (1 + 2 * side);
  const { width, height } = img;
  const at = (i: number, n: number) => (n === 1 ? 0 : i < 0 ? 1 : i >= n ? n - 2 : i);
  const rows = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows[y * width + x] = c * img.data[y * width + x]! + a * (img.data[y * width + at(x - 1, width)]! + img.data[y * width + at(x + 1, width)]!);
  }
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data[y * width + x] = Math.round(c * rows[y * width + x]! + a * (rows[at(y - 1, height) * width + x]! + rows[at(y + 1, height) * width + x]!));
  }
  return { width, height, data };
}

function referenceSample(page: GrayImage, box: RotatedBox, angle: number, width: number, height: number): GrayImage {
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= page.width || y >= page.height ? 255 : page.data[y * page.width + x]!);
  const bilinear = (x: number, y: number) => {
    const x0 = Math.floor(x);
    const y0 = Math.floor(y);
    const fx = x - x0;
    const fy = y - y0;
    if (x0 >= 0 && y0 >= 0 && x0 + 1 < page.width && y0 + 1 < page.height) {
      const top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * fx;
      const bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * fx;
      return Math.round(top + (bottom - top) * fy);
    }
    const top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
    const bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
    return Math.round(top * (1 - fy) + bottom * fy);
  };
  const [ux, uy] = [Math.cos(angle), Math.sin(angle)];
  const data = new Uint8Array(width * height);
  for (let j = 0; j < height; j++) {
    const t = ((j + 0.5) / height - 0.5) * box.height;
    for (let i = 0; i < width; i++) {
      const s = ((i + 0.5) / width - 0.5) * box.width;
      data[j * width + i] = bilinear(box.cx + s * ux - t * uy - 0.5, box.cy + s * uy + t * ux - 0.5);
    }
  }
  return { width, height, data };
}

/** A deterministic pseudo-random image: ink and paper with every grey between. */
function noise(width: number, height: number, seed: number): GrayImage {
  const data = new Uint8Array(width * height);
  let s = seed >>> 0;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = s >>> 24;
  }
  return { width, height, data };
}

const sizes: Array<[number, number, number, number]> = [
  [1, 1, 1, 1], [1, 1, 5, 3], [7, 1, 3, 1], [1, 9, 1, 4], [2, 2, 1, 1], [3, 1, 2, 1],
  [97, 31, 40, 48], [40, 48, 97, 31], [1403, 52, 1296, 48], [1403, 52, 1080, 32], [613, 401, 128, 96], [64, 64, 64, 65],
];

test('resampling is byte for byte the area-weighted and bilinear arithmetic, shrinking, enlarging and at one pixel', () => {
  sizes.forEach(([w, h, tw, th], k) => {
    const img = noise(w, h, k + 1);
    assert.deepEqual(resample(img, tw, th), referenceResample(img, tw, th), `${w}x${h} -> ${tw}x${th}`);
  });
});

test('the 3x3 Gaussian is byte for byte its separable arithmetic, one-pixel-wide and -high images included', () => {
  for (const [w, h] of [[1, 1], [1, 7], [7, 1], [2, 2], [3, 5], [1296, 48]] as const) {
    for (const sigma of [0.5, 0.8, 1.3]) {
      const img = noise(w, h, w * 31 + h);
      assert.deepEqual(gaussianBlur3(img, sigma), referenceBlur(img, sigma), `${w}x${h} sigma ${sigma}`);
    }
  }
});

test('a rotated rectangle samples byte for byte bilinearly, white beyond the page, at any angle and scale', () => {
  const page = noise(300, 200, 7);
  const cases: Array<[RotatedBox, number, number, number]> = [
    [{ cx: 150, cy: 100, width: 120, height: 30, angle: 0 }, 0, 120, 30],
    [{ cx: 150.37, cy: 99.61, width: 121.5, height: 29.2, angle: 0.07 }, 0.07, 122, 29],
    [{ cx: 150, cy: 100, width: 200, height: 40, angle: Math.PI / 2 }, Math.PI / 2, 200, 40],
    [{ cx: 20, cy: 10, width: 90, height: 50, angle: -2.9 }, -2.9 + Math.PI, 45, 25],
    [{ cx: 295, cy: 198, width: 60, height: 20, angle: 0.3 }, 0.3, 180, 60],
    [{ cx: 150, cy: 100, width: 300, height: 200, angle: 1e-9 }, 1e-9, 37, 23],
    [{ cx: -5000, cy: 1e7, width: 50, height: 10, angle: 1 }, 1, 50, 10],
  ];
  for (const [box, angle, w, h] of cases) {
    assert.deepEqual(sampleRotated(page, box, angle, w, h), referenceSample(page, box, angle, w, h), JSON.stringify(box));
  }
});
