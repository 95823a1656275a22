// Lines of a page turned a quarter or upside down: a crop is read along its text, so its fixation grid and
// its words run along the text, not along the page's x axis. Geometry on such a line is done in the line's
// own frame, where its text runs left to right, and turned back onto the page.
import type { Box } from './protocol';

/** An angle's nearest whole number of quarter turns (clockwise on the page, y down), 0 to 3. */
export function quarterTurns(angle: number): number {
  return ((Math.round(angle / (Math.PI / 2)) % 4) + 4) % 4;
}

/**
 * A page box in the frame of a line whose text runs `turns` quarter turns clockwise from left to right: there
 * it runs left to right. `(4 - turns) % 4` turns a box of that frame back onto the page.
 */
export function turnBox(b: Box, turns: number): Box {
  switch (turns) {
    case 1: return { x0: b.y0, y0: -b.x1, x1: b.y1, y1: -b.x0 };
    case 2: return { x0: -b.x1, y0: -b.y1, x1: -b.x0, y1: -b.y0 };
    case 3: return { x0: -b.y1, y0: b.x0, x1: -b.y0, y1: b.x1 };
    default: return b;
  }
}
