// What the page analysis hands the reader for each piece of a page: a text line in its views, a table or formula
// read whole, or a confirmed check box. Its own module, so that the check-box reader and the page analysis
// that both build crops need not import each other.
import type { RegionInput, RegionKind } from '../../../../common/engine-types';
import type { Box } from '../../../../common/protocol';
import type { CheckMark } from '../write/check-marks';

export interface PageCrop {
  /** The id the crop's events carry once one reading of it is kept: `region/line`. */
  id: string;
  kind: RegionKind;
  /** What the engine reads: a text line in each line view (ids `region/line#view`), a table or formula whole. */
  views: RegionInput[];
  /** Layout region this crop belongs to, and its line index within it. */
  regionId: string;
  line: number;
  /** The crop's bounds in source page pixels (where its fixations lie). */
  box: Box;
  /** The direction its text runs in on the page (radians, y down): its image's x axis, and its fixations'. */
  angle: number;
  /** A line's groups of ink (about its words), in source page pixels; empty for a crop read whole. */
  inkWords: Box[];
  /** A confirmed check box (no views): the mark written for it, unread (check-box-marks.ts). */
  checkBox?: CheckMark;
}
