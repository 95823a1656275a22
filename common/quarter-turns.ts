// Lines of a page turned a quarter or upside down: a crop is read along its text, so its fixation grid and
// its words run along the text, not along the page's x axis. Geometry on such a line is done in the line's
// own frame, where its text runs left to right, and turned back onto the page.
import type { Box } from './protocol';

/** An angle's nearest whole number of quarter turns (clockwise on the page, y down), 0 to 3. */
export function quarterTurns(angle: number): number {
  return ((Math.round(angle / (Math.PI / 2)) % 4) + 4) % 4;
}

/**
 * A page point in the frame of a line whose text runs `turns` quarter turns clockwise from left to right: there
 * it runs left to right (y down). `(4 - turns) % 4` turns a point of that frame back onto the page.
 */
export function turnPoint([x, y]: [number, number], turns: number): [number, number] {
  switch (turns) {
    case 1: return [y, -x];
    case 2: return [-x, -y];
    case 3: return [-y, x];
    default: return [x, y];
  }
}

/** A page box in a line's frame, as turnPoint turns its corners. */
export function turnBox(b: Box, turns: number): Box {
  const [ax, ay] = turnPoint([b.x0, b.y0], turns);
  const [bx, by] = turnPoint([b.x1, b.y1], turns);
  return { x0: Math.min(ax, bx), y0: Math.min(ay, by), x1: Math.max(ax, bx), y1: Math.max(ay, by) };
}
