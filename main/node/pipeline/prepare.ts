// Page preparation: flatten uneven lighting (photos, dark or faint scans), binarise, and undo rotation by
// quarter turns and small skew, so that layout analysis sees level, black-on-white text.
import type { Box } from '../../../common/protocol';
import { connectedComponents, type Component } from './components';
import { cropImage, type GrayImage } from './gray-image';

export interface PreparedPage {
  /** Level, contrast-normalised page; crops for the engine come from here. */
  gray: GrayImage;
  /** 1 = ink, 0 = paper, same size as gray. */
  ink: Uint8Array;
  /** Quarter turns clockwise applied to the source (0..3) and the residual skew removed, in degrees. */
  quarterTurns: number;
  skewDegrees: number;
  /** Maps a box on the prepared page back to source page pixels. */
  toSource(box: Box): Box;
}

const BACKGROUND_CELL = 32;

/** Divides each pixel by a smooth estimate of the paper brightness around it, then stretches the ink. */
export function normaliseBackground(img: GrayImage): GrayImage {
  const { width, height, data } = img;
  const gw = Math.ceil(width / BACKGROUND_CELL);
  const gh = Math.ceil(height / BACKGROUND_CELL);
  // Paper brightness per cell: a high percentile, so text inside the cell does not darken it.
  const grid = new Float32Array(gw * gh);
  const hist = new Uint32Array(256);
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      hist.fill(0);
      let n = 0;
      for (let y = gy * BACKGROUND_CELL; y < Math.min(height, (gy + 1) * BACKGROUND_CELL); y += 2) {
        for (let x = gx * BACKGROUND_CELL; x < Math.min(width, (gx + 1) * BACKGROUND_CELL); x += 2) {
          hist[data[y * width + x]!]!++;
          n++;
        }
      }
      grid[gy * gw + gx] = percentileOf(hist, n, 0.9);
    }
  }
  // Spread the paper estimate over cells that are all ink (a thick rule or a photo) with a max filter, then smooth.
  const smooth = blurGrid(maxFilterGrid(grid, gw, gh, 1), gw, gh, 2);
  const out = new Uint8Array(width * height);
  const norm = new Float32Array(width * height);
  hist.fill(0);
  for (let y = 0; y < height; y++) {
    const fy = Math.min(gh - 1, Math.max(0, (y + 0.5) / BACKGROUND_CELL - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(gh - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(gw - 1, Math.max(0, (x + 0.5) / BACKGROUND_CELL - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(gw - 1, x0 + 1);
      const wx = fx - x0;
      const bg = (smooth[y0 * gw + x0]! * (1 - wx) + smooth[y0 * gw + x1]! * wx) * (1 - wy)
        + (smooth[y1 * gw + x0]! * (1 - wx) + smooth[y1 * gw + x1]! * wx) * wy;
      const v = Math.min(1, data[y * width + x]! / Math.max(bg, 1));
      norm[y * width + x] = v;
      hist[Math.round(v * 255)]!++;
    }
  }
  // Faint scans: the darkest ink should reach near black. The 0.5th percentile is ink on any page with text.
  const lo = Math.min(percentileOf(hist, width * height, 0.005) / 255, 0.75);
  const range = Math.max(1 - lo, 0.05);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(Math.max(0, Math.min(1, (norm[i]! - lo) / range)) * 255);
  return { width, height, data: out };
}

function percentileOf(hist: Uint32Array, n: number, q: number): number {
  const target = n * q;
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    acc += hist[v]!;
    if (acc >= target) return v;
  }
  return 255;
}

function maxFilterGrid(g: Float32Array, w: number, h: number, r: number): Float32Array {
  const out = new Float32Array(g.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let m = 0;
      for (let dy = -r; dy <= r; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) m = Math.max(m, g[yy * w + xx]!);
        }
      }
      out[y * w + x] = m;
    }
  }
  return out;
}

function blurGrid(g: Float32Array, w: number, h: number, r: number): Float32Array {
  const out = new Float32Array(g.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let dy = -r; dy <= r; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
            s += g[yy * w + xx]!;
            n++;
          }
        }
      }
      out[y * w + x] = s / n;
    }
  }
  return out;
}

/** Otsu's threshold over the whole (already background-flattened) page. */
export function otsuThreshold(img: GrayImage): number {
  const hist = new Float64Array(256);
  const d = img.data;
  for (let i = 0; i < d.length; i++) hist[d[i]!]!++;
  const n = img.data.length;
  let sum = 0;
  for (let v = 0; v < 256; v++) sum += v * hist[v]!;
  let wB = 0;
  let sumB = 0;
  let best = 0;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    wB += hist[t]!;
    if (wB === 0) continue;
    const wF = n - wB;
    if (wF === 0) break;
    sumB += t * hist[t]!;
    const mB = sumB / wB;
    const mF = (sum - sumB) / wF;
    const between = wB * wF * (mB - mF) ** 2;
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  // A blank page has no ink mode; never call mid-gray paper texture ink.
  return Math.min(threshold, 200);
}

/**
 * The ink threshold: Otsu's, unless a higher one finds at least twice the glyph-sized components, or finds
 * letters at least twice as tall. Thin grey strokes (small print in a low-resolution image, a faded thermal
 * receipt) never get as dark as bold text and rules, which set Otsu's split, and fall apart into specks below
 * the size counted. Dot-matrix print falls apart further, into specks only, so that the tallest tenth of them
 * is itself a speck; at the threshold where the dots join, the tallest tenth is letters again. A large page is
 * counted at half size (each 2 x 2 averaged): its letters are big enough.
 */
export function inkThreshold(img: GrayImage): number {
  const sample = img.width * img.height > 4_000_000 ? halve(img) : img;
  const otsu = otsuThreshold(img);
  const atOtsu = glyphSized(sample, otsu);
  let best = { t: otsu, count: 0 };
  let joined = { t: otsu, tall: 0 };
  for (const t of [160, 185, 200, 215].filter((v) => v > otsu)) {
    const g = glyphSized(sample, t);
    // More glyphs, of letters' height still: noise at a threshold near the paper is many specks.
    const moreGlyphs = g.count >= 2 * atOtsu.count && g.count > best.count;
    if (moreGlyphs && g.tall >= 0.5 * atOtsu.tall) best = { t, count: g.count };
    // Joined dots: letters at least twice the specks' height, the tallest found.
    if (g.tall >= 2 * atOtsu.tall && g.tall > joined.tall) joined = { t, tall: g.tall };
  }
  return joined.tall > 0 ? joined.t : best.t;
}

export function binarise(img: GrayImage, threshold = inkThreshold(img)): Uint8Array {
  const d = img.data;
  const ink = new Uint8Array(d.length);
  for (let i = 0; i < d.length; i++) ink[i] = d[i]! <= threshold ? 1 : 0;
  return ink;
}

/**
 * Components at least half as tall as the tallest tenth (letters, not the specks of broken ones): how many,
 * and that tenth's height.
 */
function glyphSized(img: GrayImage, threshold: number): { count: number; tall: number } {
  const heights = connectedComponents(binarise(img, threshold), img.width, img.height)
    .filter((c) => c.area >= 4).map((c) => c.y1 - c.y0).sort((a, b) => a - b);
  const tall = heights[Math.floor(0.9 * (heights.length - 1))] ?? 0;
  return { count: heights.filter((h) => h >= Math.max(3, 0.5 * tall)).length, tall };
}

function halve(img: GrayImage): GrayImage {
  const width = img.width >> 1;
  const height = img.height >> 1;
  const out = new Uint8Array(width * height);
  const d = img.data;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = 2 * y * img.width + 2 * x;
      out[y * width + x] = (d[i]! + d[i + 1]! + d[i + img.width]! + d[i + img.width + 1]! + 2) >> 2;
    }
  }
  return { width, height, data: out };
}

/** Glyph-sized components: big shapes (the desk around a photographed sheet, figures, rules) say nothing about text lines. */
function glyphs(ink: Uint8Array, width: number, height: number): Component[] {
  return connectedComponents(ink, width, height).filter((c) => {
    const w = c.x1 - c.x0;
    const h = c.y1 - c.y0;
    return w >= 3 && h >= 3 && w < 120 && h < 120;
  });
}

/** Bottom centres of glyphs (points on the baselines), as x, y pairs. */
function baselinePoints(gs: Component[]): Int32Array {
  const pts = new Int32Array(gs.length * 2);
  gs.forEach((c, i) => {
    pts[2 * i] = (c.x0 + c.x1) >> 1;
    pts[2 * i + 1] = c.y1;
  });
  return pts;
}

/** How sharply the ink piles up into rows when projected at `degrees`: high for level text lines. */
function profileSharpness(pts: Int32Array, degrees: number, vertical: boolean, size: number): number {
  const a = (degrees * Math.PI) / 180;
  const sin = Math.sin(a);
  const cos = Math.cos(a);
  const bins = new Float64Array(size * 2 + 4);
  const off = size / 2 + 2;
  for (let i = 0; i < pts.length; i += 2) {
    const x = pts[i]!;
    const y = pts[i + 1]!;
    const p = vertical ? x * cos + y * sin : y * cos - x * sin;
    const b = Math.round(p / 2 + off);
    if (b >= 0 && b < bins.length) bins[b]!++;
  }
  let s = 0;
  for (let i = 1; i < bins.length; i++) s += (bins[i]! - bins[i - 1]!) ** 2;
  return s;
}

/** Estimated skew of text lines in degrees (positive = lines fall to the right), within +-maxDegrees. */
export function estimateSkew(ink: Uint8Array, width: number, height: number, maxDegrees = 6): number {
  const pts = baselinePoints(glyphs(ink, width, height));
  if (pts.length < 100) return 0;
  const size = width + height;
  let best = 0;
  let bestScore = -1;
  for (let d = -maxDegrees; d <= maxDegrees + 1e-9; d += 0.5) {
    const s = profileSharpness(pts, d, false, size);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  const coarse = best;
  for (let d = coarse - 0.5; d <= coarse + 0.5 + 1e-9; d += 0.1) {
    const s = profileSharpness(pts, d, false, size);
    if (s > bestScore) [best, bestScore] = [d, s];
  }
  return Math.abs(best) < 0.15 ? 0 : Math.round(best * 10) / 10;
}

/**
 * True when the text lines run vertically (the page was scanned a quarter turn off). Letters of a word touch
 * their neighbours along the line and are far from the next line, so count, per glyph-sized component,
 * whether its nearest close neighbour sits beside it or above/below it.
 */
export function linesRunVertically(ink: Uint8Array, width: number, height: number): boolean {
  const gs = glyphs(ink, width, height);
  if (gs.length < 50) return false;
  const cell = 64;
  const cols = Math.ceil(width / cell);
  const grid = new Map<number, number[]>();
  gs.forEach((c, i) => {
    const k = Math.floor(c.y0 / cell) * cols + Math.floor(c.x0 / cell);
    const list = grid.get(k);
    if (list) list.push(i);
    else grid.set(k, [i]);
  });
  let beside = 0;
  let stacked = 0;
  for (const c of gs) {
    const size = Math.max(c.x1 - c.x0, c.y1 - c.y0);
    let side = false;
    let stack = false;
    const gx = Math.floor(c.x0 / cell);
    const gy = Math.floor(c.y0 / cell);
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) {
        for (const j of grid.get((gy + dy) * cols + gx + dx) ?? []) {
          const o = gs[j]!;
          if (o === c) continue;
          const hGap = Math.max(o.x0 - c.x1, c.x0 - o.x1);
          const vGap = Math.max(o.y0 - c.y1, c.y0 - o.y1);
          const vOver = Math.min(c.y1, o.y1) - Math.max(c.y0, o.y0);
          const hOver = Math.min(c.x1, o.x1) - Math.max(c.x0, o.x0);
          if (hGap >= 0 && hGap < 0.35 * size && vOver >= 0.5 * Math.min(c.y1 - c.y0, o.y1 - o.y0)) side = true;
          if (vGap >= 0 && vGap < 0.35 * size && hOver >= 0.5 * Math.min(c.x1 - c.x0, o.x1 - o.x0)) stack = true;
        }
      }
    }
    if (side && !stack) beside++;
    if (stack && !side) stacked++;
  }
  return stacked > 1.5 * beside && stacked > 30;
}

/**
 * White text on dark bands (slides, banners, table headers in reverse) reads as black on white once turned.
 * A band is a large, mostly dark component with many glyph-sized light holes (its letters). What the band
 * encloses that is large and light (a white box with black text inside it) keeps its polarity.
 */
export function invertDarkBands(img: GrayImage): GrayImage {
  const { width, height, data } = img;
  const t = otsuThreshold(img);
  const dark = binarise(img, t);
  const bands = connectedComponents(dark, width, height).filter((c) => {
    const w = c.x1 - c.x0;
    const h = c.y1 - c.y0;
    return w * h >= 0.01 * width * height && c.area >= 0.5 * w * h;
  });
  let out: Uint8Array | null = null;
  for (const band of bands) {
    const bw = band.x1 - band.x0;
    const bh = band.y1 - band.y0;
    const region = cropImage(img, band);
    // Light means well above the band's own level (letters on a band are often dimmer than the page's paper).
    // A mid-grey band with black letters has holes only in its letters' counters, no brighter than the band.
    const hist = new Uint32Array(256);
    for (const v of region.data) hist[v]!++;
    const level = percentileOf(hist, region.data.length, 0.5);
    const local = level + 0.3 * (255 - level);
    const light = new Uint8Array(bw * bh);
    for (let i = 0; i < light.length; i++) light[i] = region.data[i]! > local ? 1 : 0;
    const holes = connectedComponents(light, bw, bh).filter((c) => c.x0 > 0 && c.y0 > 0 && c.x1 < bw && c.y1 < bh);
    const isLetter = (c: Component) => c.y1 - c.y0 >= 4 && c.y1 - c.y0 <= Math.min(150, 0.3 * bh) && c.x1 - c.x0 <= 0.3 * bw;
    if (holes.filter(isLetter).length < 20) continue;
    const kept = holes.filter((c) => !isLetter(c) && (c.x1 - c.x0) * (c.y1 - c.y0) >= 0.01 * bw * bh);
    out ??= Uint8Array.from(data);
    // The band's box also holds what touches the band from outside (a title above it, a frame below): a pixel
    // is turned only where the band is most of its neighbourhood.
    const r = 16;
    const integral = new Int32Array((bw + 1) * (bh + 1));
    for (let y = 0; y < bh; y++) {
      let row = 0;
      for (let x = 0; x < bw; x++) {
        row += dark[(band.y0 + y) * width + band.x0 + x]!;
        integral[(y + 1) * (bw + 1) + x + 1] = integral[y * (bw + 1) + x + 1]! + row;
      }
    }
    for (let y = 0; y < bh; y++) {
      const ya = Math.max(0, y - r);
      const yb = Math.min(bh, y + r + 1);
      for (let x = 0; x < bw; x++) {
        const xa = Math.max(0, x - r);
        const xb = Math.min(bw, x + r + 1);
        const sum = integral[yb * (bw + 1) + xb]! - integral[ya * (bw + 1) + xb]! - integral[yb * (bw + 1) + xa]! + integral[ya * (bw + 1) + xa]!;
        if (2 * sum < (yb - ya) * (xb - xa) || kept.some((k) => x >= k.x0 && x < k.x1 && y >= k.y0 && y < k.y1)) continue;
        const i = (band.y0 + y) * width + band.x0 + x;
        out[i] = 255 - data[i]!;
      }
    }
  }
  return out ? { width, height, data: out } : img;
}

/** Rotates about the centre into a canvas of the given size, bilinear, paper-white outside. */
function rotateImage(img: GrayImage, degrees: number, outW: number, outH: number): GrayImage {
  const a = (degrees * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const cx = img.width / 2;
  const cy = img.height / 2;
  const ox = outW / 2;
  const oy = outH / 2;
  const out = new Uint8Array(outW * outH);
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      // Inverse map: output pixel centre -> source coordinates.
      const dx = x + 0.5 - ox;
      const dy = y + 0.5 - oy;
      const sx = cos * dx + sin * dy + cx - 0.5;
      const sy = -sin * dx + cos * dy + cy - 0.5;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= img.width || y0 + 1 >= img.height) {
        out[y * outW + x] = 255;
        continue;
      }
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * img.width + x0;
      const d = img.data;
      out[y * outW + x] = Math.round(
        (d[i]! * (1 - fx) + d[i + 1]! * fx) * (1 - fy) + (d[i + img.width]! * (1 - fx) + d[i + img.width + 1]! * fx) * fy,
      );
    }
  }
  return { width: outW, height: outH, data: out };
}

/** Maps a point of an image rotated by `degrees` about its centre (output size outW x outH) to the source. */
function unrotatePoint(x: number, y: number, degrees: number, src: { width: number; height: number }, outW: number, outH: number): [number, number] {
  const a = (degrees * Math.PI) / 180;
  const dx = x - outW / 2;
  const dy = y - outH / 2;
  return [Math.cos(a) * dx + Math.sin(a) * dy + src.width / 2, -Math.sin(a) * dx + Math.cos(a) * dy + src.height / 2];
}

export function preparePage(source: GrayImage): PreparedPage {
  let gray = normaliseBackground(invertDarkBands(source));
  let ink = binarise(gray);
  let quarterTurns = 0;
  if (linesRunVertically(ink, gray.width, gray.height)) {
    // Which of the two quarter turns is right needs reading; clockwise is the common scanner mistake.
    quarterTurns = 1;
    gray = rotateImage(gray, 90, gray.height, gray.width);
    ink = binarise(gray);
  }
  const skewDegrees = estimateSkew(ink, gray.width, gray.height);
  const turned = { width: gray.width, height: gray.height };
  // Lines that fall to the right by d degrees are levelled by turning the page back by d.
  const correction = -skewDegrees;
  if (skewDegrees !== 0) {
    gray = rotateImage(gray, correction, gray.width, gray.height);
    ink = binarise(gray);
  }
  const toSource = (box: Box): Box => {
    const corners: Array<[number, number]> = [[box.x0, box.y0], [box.x1, box.y0], [box.x0, box.y1], [box.x1, box.y1]];
    const pts = corners.map(([x, y]) => {
      let p = unrotatePoint(x, y, correction, turned, turned.width, turned.height);
      if (quarterTurns === 1) p = unrotatePoint(p[0], p[1], 90, source, turned.width, turned.height);
      return p;
    });
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    return {
      x0: Math.max(0, Math.min(...xs)),
      y0: Math.max(0, Math.min(...ys)),
      x1: Math.min(source.width, Math.max(...xs)),
      y1: Math.min(source.height, Math.max(...ys)),
    };
  };
  return { gray, ink, quarterTurns, skewDegrees, toSource };
}
