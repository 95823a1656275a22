// Detection, the first stage of reading a page: the pretrained networks find its text lines (DBNet), which way
// they read (the direction classifier), and its figures, tables, titles, headers and footers (the layout
// detector). Everything after this stage works in the page's upright frame (page-frame.ts).
import type { NativePageAnalysis, NetMap } from '../../engine/native-addon';
import type { GrayImage } from '../gray-image';
import { resample } from '../resample';
import { decodeLayout, type LayoutRegionGuess } from './layout-regions';
import { PageFrame, sampleRotated } from './page-frame';
import { corners, minAreaRect, normalAngle, type Point, type RotatedBox } from './rotated-box';
import { linesFromProbability } from './text-lines';

/**
 * The detector sees the page with its longer side at most this many pixels (a multiple of 32): PaddleOCR's
 * default is 960; on the development scans 1280 found 99.3% of the ground truth's words (960: 98.9%, 1600:
 * 99.2%), so larger maps only cost time.
 */
const DETECTOR_SIDE = 1280;
/**
 * A small image (a table or a line cut from a page) is enlarged until its shorter side is this many pixels, as
 * far as DETECTOR_SIDE allows: PaddleOCR's other resize rule ("min", 736), since text a few pixels high is below
 * what the detector finds.
 */
const DETECTOR_SHORT_SIDE = 736;
/** A line's own direction counts only when it is at least this many times longer than high. */
const DIRECTIONAL = 2;
/** The page's direction is the length-weighted vote of the classifier on its longest lines, at most this many. */
const VOTERS = 32;
/** A line more than this far from the page's direction (radians: 30 degrees) is set at an angle of its own. */
const OWN_ANGLE = Math.PI / 6;
/**
 * A line at an angle of its own is read turned half a turn from how it faces the page when the direction
 * classifier is at least this sure (PaddleOCR's cls_thresh), and a page when its lines' mean vote is.
 */
const FLIP_SURE = 0.9;

export interface PageLine {
  /** On the source page; its width runs along the text. */
  box: RotatedBox;
  /** The direction the line reads in on the source page, radians: the page's, or half a turn from it. */
  angle: number;
  /** Mean detector probability inside the line. */
  score: number;
}

export interface PageDetection {
  frame: PageFrame;
  lines: PageLine[];
  /** In frame coordinates. */
  regions: LayoutRegionGuess[];
}

function softmax2(m: NetMap): number {
  const [a, b] = [m.data[0]!, m.data[1]!];
  return 1 / (1 + Math.exp(a - b));  // P("180")
}

/**
 * The classifier's input: the line's first words (a window four heights long, the classifier's own 48 x 192
 * shape) scaled to its height and padded grey. PaddleOCR squeezes the whole line into the window instead; on the
 * development pages the squeezed lines' votes were split where the window's were clean (an upright form: mean
 * 0.22 against 0.14; a turned page: 0.90 against 1.00).
 */
function classifierInput(line: GrayImage, height: number, width: number): GrayImage {
  const span = Math.min(line.width, Math.round((width / height) * line.height));
  const w = Math.max(1, Math.min(width, Math.ceil((height * span) / line.height)));
  const window: GrayImage = { width: span, height: line.height, data: new Uint8Array(span * line.height) };
  for (let y = 0; y < line.height; y++) window.data.set(line.data.subarray(y * line.width, y * line.width + span), y * span);
  const scaled = resample(window, w, height);
  const data = new Uint8Array(width * height).fill(128);
  for (let y = 0; y < height; y++) data.set(scaled.data.subarray(y * w, (y + 1) * w), y * width);
  return { width, height, data };
}

/** The same rectangle described with its width side the one nearer `direction`. */
function turnedTowards(b: RotatedBox, direction: number): RotatedBox {
  if (Math.abs(normalAngle(b.angle - direction)) <= Math.PI / 4) return b;
  return { ...b, width: b.height, height: b.width, angle: normalAngle(b.angle + Math.PI / 2) };
}

/** The angle nearest `reference` among a and a + pi. */
function facing(a: number, reference: number): number {
  const d = normalAngle(a - reference);
  return reference + d;
}

/**
 * The direction the page's text runs in, modulo half a turn: the lines' directions averaged on the doubled
 * angle (so that -89 and 89 degrees agree), weighted by length, then the median of those within 10 degrees of
 * it (a rotated table header or a stamp does not pull the page).
 */
function textDirection(lines: readonly RotatedBox[]): number {
  const directional = lines.filter((b) => b.width >= DIRECTIONAL * b.height);
  if (directional.length === 0) return 0;
  let s = 0;
  let c = 0;
  for (const b of directional) {
    s += b.width * Math.sin(2 * b.angle);
    c += b.width * Math.cos(2 * b.angle);
  }
  const mean = Math.atan2(s, c) / 2;
  const near = directional.map((b) => facing(b.angle, mean)).filter((a) => Math.abs(a - mean) <= (10 * Math.PI) / 180).sort((a, b) => a - b);
  return near.length ? near[Math.floor(near.length / 2)]! : mean;
}

interface Found {
  box: RotatedBox;
  score: number;
}

/** The size the detector sees an image at: within DETECTOR_SIDE and DETECTOR_SHORT_SIDE, sides a `multiple`. */
export function detectorSize(image: { width: number; height: number }, multiple: number): { width: number; height: number } {
  const scale = Math.min(Math.max(1, DETECTOR_SHORT_SIDE / Math.min(image.width, image.height)), DETECTOR_SIDE / Math.max(image.width, image.height));
  return {
    width: Math.max(multiple, Math.round((image.width * scale) / multiple) * multiple),
    height: Math.max(multiple, Math.round((image.height * scale) / multiple) * multiple),
  };
}

type NetsInfo = ReturnType<NativePageAnalysis['info']>['nets'];

/** The detector's lines on `image`, as rectangles on it mapped by `to`. */
async function findLines(image: GrayImage, nets: NativePageAnalysis, info: NetsInfo, to: (p: Point) => Point = (p) => p): Promise<Found[]> {
  const { width: dw, height: dh } = detectorSize(image, info['text_detector']!.multiple);
  const small = resample(image, dw, dh);
  const [prob] = (await nets.run('text_detector', [{ width: dw, height: dh, pixels: small.data }]))[0]!;
  const sx = image.width / dw;
  const sy = image.height / dh;
  return linesFromProbability(prob!.data, dw, dh).map((l) => ({ box: minAreaRect(corners(l.box).map(([x, y]) => to([x * sx, y * sy]))), score: l.score }));
}

/** The layout detector's regions on the frame, in frame coordinates. */
async function regionsOf(page: GrayImage, frame: PageFrame, nets: NativePageAnalysis, info: NetsInfo): Promise<LayoutRegionGuess[]> {
  const lay = info['layout']!;
  const upright = frame.render(page, lay.width, lay.height);
  const maps = (await nets.run('layout', [{ width: upright.width, height: upright.height, pixels: upright.data }]))[0]!;
  return decodeLayout(maps, lay.strides, lay.labels, frame.width / lay.width, frame.height / lay.height);
}

/** How much text the layout detector sees: its confidence summed over every region but figures. */
const textSeen = (regions: readonly LayoutRegionGuess[]) => regions.reduce((s, r) => s + (r.label === 'figure' ? 0 : r.score), 0);

/** `regions`: whether to look for regions (a page known to be one table needs none). */
export async function detectPage(page: GrayImage, nets: NativePageAnalysis, { regions: wanted } = { regions: true }): Promise<PageDetection> {
  const info = nets.info().nets;
  let boxes = await findLines(page, nets, info);

  // Which way the text reads: the classifier's votes on the longest lines read along the page's direction, and
  // its answer for every line set at an angle of its own (a label along an axis, a stamp), which is read the
  // way the classifier says when it is sure. Other lines read the page's way.
  const direction = textDirection(boxes.map((b) => b.box));
  const directional = (b: Found) => b.box.width >= DIRECTIONAL * b.box.height;
  const ownAngle = (b: Found) => directional(b) && Math.abs(normalAngle(b.box.angle - direction)) > OWN_ANGLE;
  const asked = [...new Set([...boxes.filter(directional).sort((a, b) => b.box.width - a.box.width).slice(0, VOTERS), ...boxes.filter(ownAngle)])];
  const cls = info['line_direction']!;
  const crops = asked.map((b) => classifierInput(sampleRotated(page, b.box, facing(b.box.angle, direction)), cls.height, cls.width));
  const answers = crops.length
    ? (await nets.run('line_direction', crops.map((c) => ({ width: c.width, height: c.height, pixels: c.data })))).map((maps) => softmax2(maps[0]!))
    : [];
  const vote = new Map(asked.map((b, k) => [b, answers[k]!]));
  const voters = asked.filter((b) => !ownAngle(b));
  const total = voters.reduce((a, b) => a + b.box.width, 0);
  const reversedVote = total > 0 ? voters.reduce((a, b) => a + vote.get(b)! * b.box.width, 0) / total : 0;
  // The classifier errs on blurred or unusual print: a page it is not sure of (a mean vote under FLIP_SURE)
  // is turned half a turn only when the layout detector also sees more text that way round, and not at all
  // where regions are not looked for.
  let turned = reversedVote >= (wanted ? 0.5 : FLIP_SURE);
  let frame = new PageFrame(page, turned ? direction + Math.PI : direction);

  let regions: LayoutRegionGuess[] = [];
  if (wanted) {
    regions = await regionsOf(page, frame, nets, info);
    if (turned && reversedVote < FLIP_SURE) {
      const other = new PageFrame(page, direction);
      const theirs = await regionsOf(page, other, nets, info);
      if (textSeen(theirs) >= textSeen(regions)) [turned, frame, regions] = [false, other, theirs];
    }
  }
  // Text set downwards or upwards (a page scanned a quarter turn off) is found again on the page turned
  // upright: the detector finds vertical lines less well than level ones. The page is turned at half again the
  // detector's side, so that the detector's own resampling averages it down rather than one bilinear pass.
  if (Math.abs(Math.sin(frame.angle)) > Math.SQRT1_2) {
    const scale = Math.min(1, (DETECTOR_SIDE * 1.5) / Math.max(frame.width, frame.height));
    const upright = frame.render(page, Math.round(frame.width * scale), Math.round(frame.height * scale));
    boxes = await findLines(upright, nets, info, ([x, y]) => frame.toSource([x / scale, y / scale]));
    vote.clear();
  }
  const lines = boxes.map((b): PageLine => {
    const own = ownAngle(b) && vote.has(b);
    const box = own ? b.box : turnedTowards(b.box, direction);
    const along = facing(box.angle, direction);
    // A short box (a digit, a check mark) has no direction of its own: it reads the page's way.
    const reversed = own ? vote.get(b)! >= FLIP_SURE : turned;
    return { box, angle: reversed ? along + Math.PI : along, score: b.score };
  });
  return { frame, lines, regions };
}
