// Where a line's words are laid in a text layer. Their boxes come from where the model looked and from the
// ink, so neighbours may touch, overlap or even nest; text extraction and search then run them together
// ("it in" read as "itin"). Each word keeps the part of its own box on its side of the boundary with its
// neighbour, and every boundary is widened to a gap that extraction reads as a space: a fifth of the taller
// neighbour's height, taken from whichever of the two has width to spare.
import type { Box } from '../../../common/protocol';

/** A word gives up at most this share of its own width to the gaps beside it. */
const MAX_GIVEN = 0.5;

/**
 * The span [x0, x1] along the line of each of a line's words, from their boxes in the line's frame (text
 * along x). A word whose box lies behind the word before's (its middle is not past the other's) is left
 * where its box is: text extraction in content order breaks a word where the text steps back.
 */
export function wordSpans(boxes: readonly Box[]): Array<[number, number]> {
  const middle = (b: Box) => (b.x0 + b.x1) / 2;
  const ordered = (k: number) => middle(boxes[k + 1]!) > middle(boxes[k]!);
  const spans = boxes.map((b): [number, number] => [b.x0, b.x1]);
  // The boundary between two words is the middle of the space between their boxes (of their overlap when
  // they overlap), kept between the two words' middles so that each word keeps some of its own box.
  for (let k = 0; k + 1 < boxes.length; k++) {
    if (!ordered(k)) continue;
    const bound = Math.min(Math.max((boxes[k]!.x1 + boxes[k + 1]!.x0) / 2, middle(boxes[k]!)), middle(boxes[k + 1]!));
    spans[k]![1] = Math.min(spans[k]![1], bound);
    spans[k + 1]![0] = Math.max(spans[k + 1]![0], bound);
  }
  const spare = (k: number) => Math.max(0, spans[k]![1] - spans[k]![0] - (1 - MAX_GIVEN) * (boxes[k]!.x1 - boxes[k]!.x0));
  for (let k = 0; k + 1 < boxes.length; k++) {
    if (!ordered(k)) continue;
    const [a, b] = [boxes[k]!, boxes[k + 1]!];
    const wanted = 0.2 * Math.max(a.y1 - a.y0, b.y1 - b.y0) - (spans[k + 1]![0] - spans[k]![1]);
    if (wanted <= 0) continue;
    // Half from each side, and from the other where one has no more to give.
    const left = Math.min(spare(k), Math.max(wanted / 2, wanted - spare(k + 1)));
    const right = Math.min(spare(k + 1), wanted - left);
    spans[k]![1] -= left;
    spans[k + 1]![0] += right;
  }
  return spans;
}
