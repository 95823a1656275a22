// The geometries a text line is shown to the model in. Scanned lines come at whatever size the scan gives
// them; resampled to a few fixed heights and softened, the model misreads fewer characters
// (docs/decisions/0015-line-views.md; for the line encoder, 0019: 48 pixels, softened, read scribe lines at
// 3.9% CER against 4.5% as cut, 32 pixels widened by a quarter at 3.9% and SROIE at 5.1% against 4.1%).
// Every line is read in the first view; one the model reads unsurely is read in the others too, and the
// surest reading wins (reading-choice.ts).
import { wholeNumber } from '../../inputs/number-options';
import type { GrayImage } from '../gray-image';
import { gaussianBlur3, resample } from '../resample';

export interface LineView {
  /** Height of the resampled crop, margins included. */
  height: number;
  /** Horizontal scale on top of the one that keeps the aspect ratio. */
  stretch: number;
  /** Sigma of the 3x3 Gaussian applied after resampling. */
  blurSigma: number;
}

/** Most accurate first: every line is read in the first, and a page read with one view uses only it. */
export const LINE_VIEWS: readonly LineView[] = [
  { height: 48, stretch: 1, blurSigma: 0.8 },
  { height: 32, stretch: 1.25, blurSigma: 0.8 },
];

/** The line encoder's column: a 48-pixel view this wide is not resampled a second time by the engine. */
const GRID = 8;

/** The line crop as `view` shows it. */
export function lineView(crop: GrayImage, view: LineView): GrayImage {
  const cols = Math.max(1, Math.round((crop.width * view.height * view.stretch) / crop.height / GRID));
  return gaussianBlur3(resample(crop, cols * GRID, view.height), view.blurSigma);
}

/** The first `count` views, for `--views`: fewer views read faster. */
export function firstLineViews(count: string): readonly LineView[] {
  return LINE_VIEWS.slice(0, wholeNumber('--views', count, 1, LINE_VIEWS.length));
}
