// Rotated rectangles: the shape the text detector's lines come in (a skewed line, a label set at an angle,
// a page scanned a quarter turn off), and the smallest one around a set of points.

export interface RotatedBox {
  cx: number;
  cy: number;
  /** Side along `angle`: the text's direction for a line. */
  width: number;
  height: number;
  /** Direction of the width side, radians, in (-pi/2, pi/2]. */
  angle: number;
}

export type Point = readonly [number, number];

/** Corners in order: top-left, top-right, bottom-right, bottom-left, for a box read along its angle. */
export function corners(b: RotatedBox): [Point, Point, Point, Point] {
  const ux = Math.cos(b.angle);
  const uy = Math.sin(b.angle);
  const hw = b.width / 2;
  const hh = b.height / 2;
  const at = (s: number, t: number): Point => [b.cx + s * hw * ux - t * hh * uy, b.cy + s * hw * uy + t * hh * ux];
  return [at(-1, -1), at(1, -1), at(1, 1), at(-1, 1)];
}

/** Convex hull (Andrew's monotone chain), counter-clockwise in a y-down frame's terms, no repeated points. */
function convexHull(points: readonly Point[]): Point[] {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length <= 2) return pts;
  const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Point[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && cross(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i]!;
    while (upper.length >= 2 && cross(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/** Normalises a box so its width is its longer side (a line runs along its longer side). */
function alongLongerSide(b: RotatedBox): RotatedBox {
  if (b.width >= b.height) return { ...b, angle: normalAngle(b.angle) };
  return { ...b, width: b.height, height: b.width, angle: normalAngle(b.angle + Math.PI / 2) };
}

/** The angle in (-pi/2, pi/2]: a box's width side points both ways. */
export function normalAngle(a: number): number {
  let r = a % Math.PI;
  if (r <= -Math.PI / 2) r += Math.PI;
  if (r > Math.PI / 2) r -= Math.PI;
  return r;
}

/**
 * The smallest-area rectangle around the points (rotating calipers: one of its sides lies along an edge of the
 * convex hull), with its width along its longer side.
 */
export function minAreaRect(points: readonly Point[]): RotatedBox {
  const hull = convexHull(points);
  if (hull.length === 0) return { cx: 0, cy: 0, width: 0, height: 0, angle: 0 };
  if (hull.length === 1) return { cx: hull[0]![0], cy: hull[0]![1], width: 0, height: 0, angle: 0 };
  let best: RotatedBox | null = null;
  let bestArea = Infinity;
  for (let i = 0; i < hull.length; i++) {
    const a = hull[i]!;
    const b = hull[(i + 1) % hull.length]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len === 0) continue;
    const ux = (b[0] - a[0]) / len;
    const uy = (b[1] - a[1]) / len;
    let minS = Infinity;
    let maxS = -Infinity;
    let minT = Infinity;
    let maxT = -Infinity;
    for (const p of hull) {
      const s = p[0] * ux + p[1] * uy;
      const t = -p[0] * uy + p[1] * ux;
      minS = Math.min(minS, s);
      maxS = Math.max(maxS, s);
      minT = Math.min(minT, t);
      maxT = Math.max(maxT, t);
    }
    const area = (maxS - minS) * (maxT - minT);
    if (area < bestArea) {
      bestArea = area;
      const s = (minS + maxS) / 2;
      const t = (minT + maxT) / 2;
      best = { cx: s * ux - t * uy, cy: s * uy + t * ux, width: maxS - minS, height: maxT - minT, angle: Math.atan2(uy, ux) };
    }
  }
  return alongLongerSide(best!);
}

/** Axis-aligned bounds of points. */
export function boundsOf(points: readonly Point[]): { x0: number; y0: number; x1: number; y1: number } {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of points) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return { x0, y0, x1, y1 };
}
