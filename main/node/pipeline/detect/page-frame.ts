// The upright frame of a page: the page turned so that its text runs left to right, top to bottom, whatever the
// scan did (a quarter or half turn, a few degrees of skew). Layout works in this frame with plain axis-aligned
// boxes; pixels are always sampled from the source page, so nothing is resampled twice.
import type { Box } from '../../../../common/protocol';
import type { GrayImage } from '../gray-image';
import { loadAddon } from '../../engine/native-addon';
import { boundsOf, corners, type Point, type RotatedBox } from './rotated-box';

export class PageFrame {
  /** The frame's size: the source's bounding box once turned. */
  readonly width: number;
  readonly height: number;
  private readonly dx: number;
  private readonly dy: number;

  /**
   * `angle`: the direction text runs in on the source page, radians (0: upright; pi/2: the page was turned a
   * quarter clockwise, its lines run downwards).
   */
  constructor(readonly source: { width: number; height: number }, readonly angle: number) {
    this.dx = Math.cos(angle);
    this.dy = Math.sin(angle);
    this.width = Math.abs(source.width * this.dx) + Math.abs(source.height * this.dy);
    this.height = Math.abs(source.width * this.dy) + Math.abs(source.height * this.dx);
  }

  /** Source pixel coordinates -> frame coordinates. */
  toFrame([x, y]: Point): Point {
    const u = x - this.source.width / 2;
    const v = y - this.source.height / 2;
    return [u * this.dx + v * this.dy + this.width / 2, -u * this.dy + v * this.dx + this.height / 2];
  }

  /** Frame coordinates -> source pixel coordinates. */
  toSource([u, v]: Point): Point {
    const a = u - this.width / 2;
    const b = v - this.height / 2;
    return [a * this.dx - b * this.dy + this.source.width / 2, a * this.dy + b * this.dx + this.source.height / 2];
  }

  /** A source rectangle's axis-aligned bounds in the frame. */
  boxToFrame(b: RotatedBox): Box {
    return boundsOf(corners(b).map((p) => this.toFrame(p)));
  }

  /** A frame box's axis-aligned bounds on the source page, clipped to it. */
  boxToSource(b: Box): Box {
    const r = boundsOf(([[b.x0, b.y0], [b.x1, b.y0], [b.x1, b.y1], [b.x0, b.y1]] as Point[]).map((p) => this.toSource(p)));
    return { x0: Math.max(0, r.x0), y0: Math.max(0, r.y0), x1: Math.min(this.source.width, r.x1), y1: Math.min(this.source.height, r.y1) };
  }

  /** The whole frame resampled to width x height from the source (bilinear; paper white outside the page). */
  render(page: GrayImage, width: number, height: number): GrayImage {
    const whole = { cx: this.source.width / 2, cy: this.source.height / 2, width: this.width, height: this.height, angle: this.angle };
    return sampleRotated(page, whole, this.angle, width, height);
  }
}

/**
 * The pixels of a rotated rectangle of the page, read along `angle` (its width along the text), at width x
 * height (by default the page's own pixel size): an upright image of a line however it was set on the page.
 * Bilinear, pixel centres at integers, paper white outside the page (native/src/page/gray_image.h).
 */
export function sampleRotated(page: GrayImage, box: RotatedBox, angle: number,
  width = Math.max(1, Math.round(box.width)), height = Math.max(1, Math.round(box.height))): GrayImage {
  const rect = { cx: box.cx, cy: box.cy, width: box.width, height: box.height, ux: Math.cos(angle), uy: Math.sin(angle) };
  return loadAddon().sampleRectGray(page, rect, width, height);
}
