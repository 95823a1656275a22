// The word-like groups of ink along one text line: columns with ink, joined across gaps narrower than a word
// space. Word boxes from fixation have the resolution of an image token (about half a line's height); the ink
// has the page's own (docs/decisions/0017, word-boxes.ts aligns the two).
import type { Box } from '../../../common/protocol';

/**
 * A gap between letters is under a tenth of the line's height in running text; a word space a quarter or
 * more. Gaps at least this share of the line's height split groups.
 */
const WORD_GAP = 0.2;

/** Groups of ink inside `line` (pixels of the binary `ink` raster, 1 = ink), left to right, each as tight box. */
export function inkWords(ink: Uint8Array, width: number, height: number, line: Box): Box[] {
  const x0 = Math.max(0, Math.floor(line.x0));
  const x1 = Math.min(width, Math.ceil(line.x1));
  const y0 = Math.max(0, Math.floor(line.y0));
  const y1 = Math.min(height, Math.ceil(line.y1));
  if (x1 <= x0 || y1 <= y0) return [];
  const gap = Math.max(2, Math.round(WORD_GAP * (y1 - y0)));
  const columnInk = (x: number) => {
    for (let y = y0; y < y1; y++) if (ink[y * width + x]) return true;
    return false;
  };
  const groups: Box[] = [];
  let start = -1;
  let last = -1;
  const close = () => {
    if (start < 0) return;
    let top = y1;
    let bottom = y0;
    for (let y = y0; y < y1; y++) {
      for (let x = start; x <= last; x++) {
        if (ink[y * width + x]) {
          top = Math.min(top, y);
          bottom = y + 1;
          break;
        }
      }
    }
    groups.push({ x0: start, y0: top, x1: last + 1, y1: bottom });
    start = -1;
  };
  for (let x = x0; x < x1; x++) {
    if (!columnInk(x)) continue;
    if (start >= 0 && x - last - 1 >= gap) close();
    if (start < 0) start = x;
    last = x;
  }
  close();
  return groups;
}
