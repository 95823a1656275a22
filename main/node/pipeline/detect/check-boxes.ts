// Check boxes on forms. No detector we ship names them (the text detector fires on some, and the reader then
// writes whatever letter the square looks like), so candidates are found in the page's ink: a piece of ink
// shaped like a hollow square about as tall as the page's text, ruled on all four sides and in every corner,
// with nothing inside it (empty) or a mark (ticked). A solid square is a bullet, a ruled grid's small cells are
// one piece of ink with the whole grid, and "O" or "D" touch their bounds only where they curve. At ten pixels
// shape alone cannot tell a box from a blurred typewriter "m", so these are candidates only: the reader confirms
// them (read/check-box-marks.ts, docs/decisions/0025).
import type { Box } from '../../../../common/protocol';
import { histogram, median, otsuThreshold, percentile, type GrayImage } from '../gray-image';

export interface CheckBoxShape {
  /** The square's bounds on the source page. */
  box: Box;
  ticked: boolean;
}

/** A side is drawn when ink crosses its band at this share of the positions along it (a scan breaks rules). */
const SIDE_DRAWN = 0.9;
/** Width and height of a square within this share of each other. */
const SQUARE = 0.2;
/** The band along each side that holds its rule, as a share of the side; the inside begins past two bands. */
const RULE_BAND = 0.1;
/** Ink inside beyond this share is a mark (a tick, a cross, a dot); beyond SOLID the square is a bullet. */
const MARKED = 0.05;
const SOLID = 0.9;
/** A box's side, from this share of the page's line height (the detector's boxes, margins included) to LARGEST. */
const SMALLEST = 0.4;
const LARGEST = 1.5;

/** A page's grey levels, with the level that joins ink into pieces and the level of its paper. */
interface Ink {
  data: Uint8Array;
  width: number;
  height: number;
  threshold: number;
  paper: number;
}

/** Halfway from a stroke's grey to the paper: where the stroke's own edge lies, faint or dark. */
const halfway = (stroke: number, paper: number) => (stroke + paper) / 2;

/**
 * The bounds of each 4-connected piece of ink that holds a row of ink from `shortest` to `largest` pixels long
 * (a box's top rule), if the piece is no larger than `largest` either way. Only those pieces are traced, so the
 * cost follows the page's rules and box-wide strokes, not all of its ink.
 */
function ruledPieces(ink: Ink, shortest: number, largest: number): Box[] {
  const { width, height, data, threshold } = ink;
  const seen = new Uint8Array(width * height);
  const stack: number[] = [];
  const pieces: Box[] = [];
  const visit = (j: number) => {
    if (!seen[j] && data[j]! <= threshold) {
      seen[j] = 1;
      stack.push(j);
    }
  };
  const trace = (start: number): Box => {
    const p = { x0: width, y0: height, x1: 0, y1: 0 };
    visit(start);
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % width;
      const y = (i - x) / width;
      if (x < p.x0) p.x0 = x;
      if (x >= p.x1) p.x1 = x + 1;
      if (y < p.y0) p.y0 = y;
      if (y >= p.y1) p.y1 = y + 1;
      // 4-connected: a box's rules run straight, and a pixel touching the text beside it at a corner must not
      // join the two.
      if (x > 0) visit(i - 1);
      if (x + 1 < width) visit(i + 1);
      if (y > 0) visit(i - width);
      if (y + 1 < height) visit(i + width);
    }
    return p;
  };
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let x = 0;
    while (x < width) {
      if (data[row + x]! > threshold) {
        x++;
        continue;
      }
      const start = x;
      while (x < width && data[row + x]! <= threshold) x++;
      if (x - start < shortest || x - start > largest || seen[row + start]) continue;
      const p = trace(row + start);
      if (p.x1 - p.x0 <= largest && p.y1 - p.y0 <= largest) pieces.push(p);
    }
  }
  return pieces;
}

type Side = 'top' | 'bottom' | 'left' | 'right';

/** The darkest grey across one side's band of `p`, at each position along the side. */
function sideProfile(ink: Ink, p: Box, side: Side, band: number): Uint8Array {
  const horizontal = side === 'top' || side === 'bottom';
  const [from, to] = horizontal ? [p.x0, p.x1] : [p.y0, p.y1];
  const [a0, a1] = side === 'top' ? [p.y0, p.y0 + band] : side === 'bottom' ? [p.y1 - band, p.y1]
    : side === 'left' ? [p.x0, p.x0 + band] : [p.x1 - band, p.x1];
  const profile = new Uint8Array(to - from).fill(255);
  for (let a = from; a < to; a++) {
    for (let b = a0; b < a1; b++) {
      const v = ink.data[horizontal ? b * ink.width + a : a * ink.width + b]!;
      if (v < profile[a - from]!) profile[a - from] = v;
    }
  }
  return profile;
}

/**
 * Each side's rule, as the level halfway from its typical grey (the median along it: a tick or a corner may
 * print darker than the rule) to the paper; null when a side is not drawn: its typical grey is no ink, or it
 * is not that dark along SIDE_DRAWN of it.
 * Measured per side, since a scan blurs a thin rule one way more than the other: a box's top may print black
 * and its right side grey.
 */
function sideLevels(ink: Ink, p: Box, band: number): number[] | null {
  const levels: number[] = [];
  for (const side of ['top', 'bottom', 'left', 'right'] as const) {
    const profile = sideProfile(ink, p, side, band);
    const typical = median(Array.from(profile));
    if (typical > ink.threshold) return null;
    const level = halfway(typical, ink.paper);
    let drawn = 0;
    for (const v of profile) if (v <= level) drawn++;
    if (drawn < SIDE_DRAWN * profile.length) return null;
    levels.push(level);
  }
  return levels;
}

/** Whether each corner's band-sized square is as dark as the rules that meet there: a letter's curves are not. */
function cornersInked(ink: Ink, p: Box, band: number, [top, bottom, left, right]: number[]): boolean {
  const corner = (x0: number, y0: number, level: number): boolean => {
    for (let y = y0; y < y0 + band; y++) {
      for (let x = x0; x < x0 + band; x++) if (ink.data[y * ink.width + x]! <= level) return true;
    }
    return false;
  };
  return corner(p.x0, p.y0, Math.max(top!, left!)) && corner(p.x1 - band, p.y0, Math.max(top!, right!))
    && corner(p.x0, p.y1 - band, Math.max(bottom!, left!)) && corner(p.x1 - band, p.y1 - band, Math.max(bottom!, right!));
}

/**
 * The check-box candidates on a page whose text lines are about `lineHeight` pixels high (the detector's line
 * boxes, which hold a margin above and below the letters).
 */
export function findCheckBoxes(img: GrayImage, lineHeight: number): CheckBoxShape[] {
  if (!(lineHeight > 0)) return [];
  const smallest = Math.max(6, Math.round(SMALLEST * lineHeight));
  const largest = Math.round(LARGEST * lineHeight);
  // Every fourth pixel gives the page's levels as well as all of them, at a quarter of the cost. Pieces are
  // joined at the level halfway from Otsu's to the paper, so that a faint rule holds together.
  const hist = histogram(img.data, 4);
  const paper = percentile(hist, 0.5);
  const ink: Ink = { ...img, threshold: halfway(Math.min(otsuThreshold(hist), paper), paper), paper };
  const found: CheckBoxShape[] = [];
  // A box's top rule runs across at least SIDE_DRAWN of its side.
  for (const p of ruledPieces(ink, Math.floor(SIDE_DRAWN * smallest), largest)) {
    const w = p.x1 - p.x0;
    const h = p.y1 - p.y0;
    if (Math.min(w, h) < smallest || Math.abs(w - h) > SQUARE * Math.max(w, h)) continue;
    const band = Math.max(2, Math.round(RULE_BAND * Math.min(w, h)));
    const levels = sideLevels(ink, p, band);
    if (!levels || !cornersInked(ink, p, band, levels)) continue;
    // The inside is marked where it is as dark as the edge of the darkest rule: a grey smudge is no tick.
    const inkLevel = Math.min(...levels);
    let inside = 0;
    let area = 0;
    for (let y = p.y0 + 2 * band; y < p.y1 - 2 * band; y++) {
      for (let x = p.x0 + 2 * band; x < p.x1 - 2 * band; x++) {
        if (img.data[y * img.width + x]! <= inkLevel) inside++;
        area++;
      }
    }
    if (area === 0) continue;
    const share = inside / area;
    if (share > SOLID) continue;
    found.push({ box: p, ticked: share > MARKED });
  }
  return found;
}
