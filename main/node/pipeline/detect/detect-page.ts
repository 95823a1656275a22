// Detection, the first stage of reading a page: the pretrained networks find its text lines (DBNet), which way
// they read (the direction classifier), and its figures, tables, titles, headers and footers (the layout
// detector). Everything after this stage works in the page's upright frame (page-frame.ts).
import type { NativePageAnalysis, NetMap } from '../../native-addon';
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
export const DETECTOR_SIDE = 1280;
/**
 * A small image (a table or a line cut from a page) is enlarged until its shorter side is this many pixels, as
 * far as DETECTOR_SIDE allows: PaddleOCR's other resize rule ("min", 736), since text a few pixels high is below
 * what the detector finds.
 */
export const DETECTOR_SHORT_SIDE = 736;
/** A line's own direction counts only when it is at least this many times longer than high. */
const DIRECTIONAL = 2;
/** The page's direction is the length-weighted vote of the classifier on its longest lines, at most this many. */
const VOTERS = 32;
/** A line more than this far from the page's direction (radians: 30 degrees) is set at an angle of its own. */
const OWN_ANGLE = Math.PI / 6;
/**
 * A line at an angle of its own is read turned half a turn from how it faces the page when the direction
 * classifier is at least this sure (PaddleOCR's cls_thresh).
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
  /** Milliseconds of each network, for the statistics and the benchmark. */
  ms: { detector: number; direction: number; layout: number };
}

function softmax2(m: NetMap): number {
  const [a, b] = [m.data[0]!, m.data[1]!];
  return 1 / (1 + Math.exp(a - b));  // P("180")
}

/** The classifier's input: the line at its height, as wide as its shape gives up to the input's width, padded grey. */
function classifierInput(line: GrayImage, height: number, width: number): GrayImage {
  const w = Math.max(1, Math.min(width, Math.ceil((height * line.width) / line.height)));
  const scaled = resample(line, w, height);
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
export function textDirection(lines: readonly RotatedBox[]): number {
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

/** `regions`: whether to look for regions (a page known to be one table needs none). */
export async function detectPage(page: GrayImage, nets: NativePageAnalysis, { regions: wanted } = { regions: true }): Promise<PageDetection> {
  const info = nets.info().nets;
  const ms = { detector: 0, direction: 0, layout: 0 };
  const multiple = info['text_detector']!.multiple;
  const scale = Math.min(Math.max(1, DETECTOR_SHORT_SIDE / Math.min(page.width, page.height)), DETECTOR_SIDE / Math.max(page.width, page.height));
  const dw = Math.max(multiple, Math.round((page.width * scale) / multiple) * multiple);
  const dh = Math.max(multiple, Math.round((page.height * scale) / multiple) * multiple);
  let t = Date.now();
  const small = resample(page, dw, dh);
  const [prob] = (await nets.run('text_detector', [{ width: dw, height: dh, pixels: small.data }]))[0]!;
  ms.detector = Date.now() - t;
  const sx = page.width / dw;
  const sy = page.height / dh;
  const boxes = linesFromProbability(prob!.data, dw, dh).map((l) => {
    const mapped = corners(l.box).map(([x, y]): Point => [x * sx, y * sy]);
    return { box: minAreaRect(mapped), score: l.score };
  });

  // Which way the text reads: the classifier's votes on the longest lines read along the page's direction, and
  // its answer for every line set at an angle of its own (a label along an axis, a stamp), which is read the
  // way the classifier says when it is sure. Other lines read the page's way.
  const direction = textDirection(boxes.map((b) => b.box));
  const directional = (i: number) => boxes[i]!.box.width >= DIRECTIONAL * boxes[i]!.box.height;
  const ownAngle = (i: number) => directional(i) && Math.abs(normalAngle(boxes[i]!.box.angle - direction)) > OWN_ANGLE;
  // A short box (a digit, a check mark) has no direction of its own: it reads the page's way.
  for (let i = 0; i < boxes.length; i++) if (!ownAngle(i)) boxes[i]!.box = turnedTowards(boxes[i]!.box, direction);
  const along = boxes.map((b) => facing(b.box.angle, direction));
  const askedFor = new Set(boxes.map((b, i) => i).filter(directional).sort((a, b) => boxes[b]!.box.width - boxes[a]!.box.width).slice(0, VOTERS));
  boxes.forEach((_, i) => ownAngle(i) && askedFor.add(i));
  const asked = [...askedFor];
  const cls = info['line_direction']!;
  t = Date.now();
  const crops = asked.map((i) => classifierInput(sampleRotated(page, boxes[i]!.box, along[i]!), cls.height, cls.width));
  const answers = crops.length
    ? (await nets.run('line_direction', crops.map((c) => ({ width: c.width, height: c.height, pixels: c.data })))).map((maps) => softmax2(maps[0]!))
    : [];
  ms.direction = Date.now() - t;
  const vote = new Map(asked.map((i, k) => [i, answers[k]!]));
  const voters = asked.filter((i) => !ownAngle(i));
  const total = voters.reduce((a, i) => a + boxes[i]!.box.width, 0);
  const turned = total > 0 && voters.reduce((a, i) => a + vote.get(i)! * boxes[i]!.box.width, 0) / total > 0.5;
  const frame = new PageFrame(page, turned ? direction + Math.PI : direction);
  const lines = boxes.map((b, i): PageLine => {
    const p = vote.get(i);
    const reversed = ownAngle(i) && p !== undefined ? p >= FLIP_SURE : turned;
    return { box: b.box, angle: reversed ? along[i]! + Math.PI : along[i]!, score: b.score };
  });

  if (!wanted) return { frame, lines, regions: [], ms };
  const lay = info['layout']!;
  t = Date.now();
  const upright = frame.render(page, lay.width, lay.height);
  const maps = (await nets.run('layout', [{ width: upright.width, height: upright.height, pixels: upright.data }]))[0]!;
  const regions = decodeLayout(maps, lay.strides, lay.labels, frame.width / lay.width, frame.height / lay.height);
  ms.layout = Date.now() - t;
  return { frame, lines, regions, ms };
}
