// The pixels of one text line as the reader is shown them: cut from the source page along the line's own
// direction (a skewed or turned line comes out level), light text on a dark band turned dark on light, and the
// line's grey range stretched to full contrast. Also where its words' ink lies, for word boxes
// (docs/decisions/0017).
import type { Box } from '../../../../common/protocol';
import { sampleRotated } from '../detect/page-frame';
import { boundsOf, type Point, type RotatedBox } from '../detect/rotated-box';
import { histogram, otsuThreshold, percentile, type GrayImage } from '../gray-image';

/**
 * A gap between letters is under a tenth of the line's height in running text; a word space a quarter or
 * more. Gaps at least this share of the line's height split the ink into words.
 */
const WORD_GAP = 0.2;

export interface LineCrop {
  image: GrayImage;
  /** The crop's rectangle on the source page and the direction it is read in. */
  box: RotatedBox;
  angle: number;
}

/** Dark on light at full contrast: a crop whose paper (its median) is darker than mid-grey is inverted. */
function normalise(img: GrayImage): GrayImage {
  let h = histogram(img.data);
  let data = img.data;
  if (percentile(h, 0.5) < 128) {
    data = data.map((v) => 255 - v);
    h = histogram(data);
  }
  const lo = percentile(h, 0.01);
  const hi = percentile(h, 0.99);
  if (hi - lo < 16) return { ...img, data };
  const scale = 255 / (hi - lo);
  return { ...img, data: data.map((v) => Math.max(0, Math.min(255, Math.round((v - lo) * scale)))) };
}

/**
 * The line's crop: `box` on the source page read along `angle`. The detector's box is the crop, margins and
 * all, as PaddleOCR cuts lines for the recogniser our line encoder is: on the development scans a sixth of the
 * height more at the sides and a tenth above and below read no better, and a third or more read worse (the
 * neighbouring lines' ink comes in).
 */
export function cropLine(page: GrayImage, box: RotatedBox, angle: number): LineCrop {
  return { image: normalise(sampleRotated(page, box, angle)), box, angle };
}

/** A point of the crop's image (pixels, x along the line) on the source page. */
function toPage(c: LineCrop, x: number, y: number): Point {
  const s = (x / c.image.width - 0.5) * c.box.width;
  const t = (y / c.image.height - 0.5) * c.box.height;
  const ux = Math.cos(c.angle);
  const uy = Math.sin(c.angle);
  return [c.box.cx + s * ux - t * uy, c.box.cy + s * uy + t * ux];
}

/** The crop's rectangle's bounds on the source page. */
export function cropBounds(c: LineCrop): Box {
  return boundsOf([toPage(c, 0, 0), toPage(c, c.image.width, 0), toPage(c, c.image.width, c.image.height), toPage(c, 0, c.image.height)]);
}

/**
 * The word-like groups of ink along the line (columns with ink, joined across gaps under a word space), as
 * bounds on the source page. A table's rules that the detector's box takes in are no words: a row inked across
 * most of the crop, or a column inked down nearly all of it, is left out. The word space is measured against
 * the letters' rows, not the box's height, which holds a margin above and below them.
 */
export function inkWords(c: LineCrop): Box[] {
  const { width, height, data } = c.image;
  const t = otsuThreshold(histogram(data));
  const ink = (x: number, y: number) => data[y * width + x]! <= t;
  const rowInk = new Int32Array(height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (ink(x, y)) rowInk[y]!++;
  const ruleRow = Array.from(rowInk, (n) => n >= 0.8 * width);
  const colInk = new Int32Array(width);
  for (let y = 0; y < height; y++) if (!ruleRow[y]) for (let x = 0; x < width; x++) if (ink(x, y)) colInk[x]!++;
  const letters = (x: number) => colInk[x]! > 0 && colInk[x]! < 0.9 * height;
  // The line's own rows: from the first to the last with a twentieth of the densest row's ink (a neighbouring
  // line's descenders in the box's margin have less, an ascender or descender of this line's words more).
  const counts = rowInk.map((n, y) => (ruleRow[y] ? 0 : n));
  const dense = Math.max(...counts);
  if (dense === 0) return [];
  const rowTop = counts.findIndex((n) => n >= 0.05 * dense);
  const rowEnd = height - [...counts].reverse().findIndex((n) => n >= 0.05 * dense);
  const gap = Math.max(2, Math.round(WORD_GAP * (rowEnd - rowTop)));
  const groups: Box[] = [];
  let start = -1;
  let last = -1;
  const close = () => {
    if (start < 0) return;
    let top = rowEnd;
    let bottom = rowTop;
    for (let y = rowTop; y < rowEnd; y++) {
      if (ruleRow[y]) continue;
      for (let x = start; x <= last; x++) {
        if (letters(x) && ink(x, y)) {
          top = Math.min(top, y);
          bottom = y + 1;
          break;
        }
      }
    }
    groups.push(boundsOf([toPage(c, start, top), toPage(c, last + 1, top), toPage(c, last + 1, bottom), toPage(c, start, bottom)]));
    start = -1;
  };
  for (let x = 0; x < width; x++) {
    if (!letters(x)) continue;
    if (start >= 0 && x - last - 1 >= gap) close();
    if (start < 0) start = x;
    last = x;
  }
  close();
  return groups;
}
