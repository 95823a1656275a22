// One page from raster to engine inputs: detect (detect/), assemble (assemble/), and cut the crops the reader
// reads best: text as single lines along their own direction, table cells as lines, formulas whole. Region
// and crop boxes go back to source page coordinates for the UI.
import type { RegionKind } from '../../../../common/engine-types';
import type { Box, LayoutRegion } from '../../../../common/protocol';
import type { NativePageAnalysis } from '../../engine/native-addon';
import { assemblePage, assembleTable, type FrameLine, type LayoutBlock } from '../assemble/page-layout';
import { detectPage, type PageDetection } from '../detect/detect-page';
import type { PageFrame } from '../detect/page-frame';
import { normalAngle, type RotatedBox } from '../detect/rotated-box';
import type { GrayImage } from '../gray-image';
import { checkBoxCandidates, type CheckBoxCandidate, type MarkableLine } from './check-box-marks';
import { cropBounds, cropLine, inkWords, type LineCrop } from './line-crop';
import { LINE_VIEWS, lineView, type LineView } from './line-views';
import type { PageCrop } from './page-crop';
import { tableMarkup, type TableMarkup } from '../write/table-markup';

export interface PageAnalysisOptions {
  /**
   * Tables read cell by cell, each cell a text line, the table rebuilt from the grid layout found ('cells');
   * or whole, by the model's table mode ('whole'). docs/decisions/0014-tables-read-by-cells.md
   */
  tables: 'cells' | 'whole';
  /** The page is one table (a table crop): regions are not looked for. */
  pageIsTable: boolean;
  /** Views every text line is read in (the first alone when there is one). docs/decisions/0015-line-views.md */
  lineViews: readonly LineView[];
  /** A line or cell whose reading the model is unsure of reads as empty (reading-choice.ts). */
  dropUnsure: boolean;
}

export const DEFAULT_PAGE_ANALYSIS: PageAnalysisOptions = { tables: 'cells', pageIsTable: false, lineViews: LINE_VIEWS, dropUnsure: true };

export interface AnalysedPage {
  page: number;
  regions: LayoutRegion[];
  blocks: LayoutBlock[];
  crops: PageCrop[];
  /** Tables read by cells, by region id: the HTML around their cells' text. */
  tables: Map<string, TableMarkup>;
  /** Figures, by region id: their rectangles on the source page, read upright along `angle`. */
  figures: Map<string, { box: RotatedBox; angle: number }>;
  /** The direction the page's text runs in on the source (radians; 0 upright). */
  angle: number;
  /** Check-box candidates beside or in its text lines and table cells, for the reader to confirm. */
  checkBoxes: CheckBoxCandidate[];
}

function engineKind(kind: LayoutBlock['kind']): RegionKind {
  return kind === 'table' || kind === 'formula' ? kind : 'text';
}

export function regionId(page: number, index: number): string {
  return `p${page}-r${index}`;
}

function roundBox(b: Box): Box {
  return { x0: Math.round(b.x0), y0: Math.round(b.y0), x1: Math.round(b.x1), y1: Math.round(b.y1) };
}

/** The frame's lines: each detector line's bounds in the frame, with its own rectangle on the page. */
function frameLines(detection: PageDetection): FrameLine[] {
  return detection.lines.map((l) => ({ ...detection.frame.boxToFrame(l.box), own: { box: l.box, angle: l.angle } }));
}

/** A frame box as a rectangle on the source page. */
function sourceRect(frame: PageFrame, box: Box): RotatedBox {
  const [cx, cy] = frame.toSource([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2]);
  return { cx, cy, width: box.x1 - box.x0, height: box.y1 - box.y0, angle: normalAngle(frame.angle) };
}

/** A line's crop: its own rectangle where the detector gave it one, else its bounds in the frame read level. */
function lineCrop(page: GrayImage, frame: PageFrame, line: FrameLine): LineCrop {
  return line.own ? cropLine(page, line.own.box, line.own.angle) : cropLine(page, sourceRect(frame, line), frame.angle);
}

export async function analysePage(page: number, raster: GrayImage, nets: NativePageAnalysis,
  options: PageAnalysisOptions = DEFAULT_PAGE_ANALYSIS): Promise<AnalysedPage> {
  const detection = await detectPage(raster, nets, { regions: !options.pageIsTable });
  const { frame } = detection;
  const lines = frameLines(detection);
  const blocks = options.pageIsTable ? assembleTable(lines, frame.width, frame.height) : assemblePage(lines, detection.regions);
  const regions: LayoutRegion[] = [];
  const crops: PageCrop[] = [];
  const tables = new Map<string, TableMarkup>();
  const figures = new Map<string, { box: RotatedBox; angle: number }>();
  // Text lines and table cells' lines, where a check box can stand in the text.
  const markable: MarkableLine[] = [];
  blocks.forEach((block, i) => {
    const id = regionId(page, i);
    regions.push({ id, page, kind: block.kind, box: roundBox(frame.boxToSource(block.box)), order: block.order });
    // A figure is written as an image, never read: the text in it, if any, is in the blocks after it.
    if (block.kind === 'figure') {
      figures.set(id, { box: sourceRect(frame, block.box), angle: frame.angle });
      return;
    }
    const byCells = block.kind === 'table' && options.tables === 'cells' && (block.grid?.cells.length ?? 0) > 0;
    if (byCells) tables.set(id, tableMarkup(block.grid!));
    const kind = byCells ? 'text' : engineKind(block.kind);
    const parts: FrameLine[] = byCells ? block.grid!.cells.flatMap((c) => c.lines) : kind === 'text' ? block.lines : [];
    if (parts.length === 0) {
      // Read whole: a formula, or a table by the model's table mode.
      const whole = lineCrop(raster, frame, { ...block.box });
      const cropId = `${id}/0`;
      crops.push({ id: cropId, kind, regionId: id, line: 0, box: roundBox(cropBounds(whole)), angle: whole.angle, inkWords: [],
        views: [{ id: `${cropId}#0`, kind, width: whole.image.width, height: whole.image.height, pixels: whole.image.data }] });
      return;
    }
    parts.forEach((line, n) => {
      const crop = lineCrop(raster, frame, line);
      const cropId = `${id}/${n}`;
      const words = inkWords(crop).map(roundBox);
      markable.push({ id: cropId, crop, words });
      const images = options.lineViews.length > 0 ? options.lineViews.map((v) => lineView(crop.image, v)) : [crop.image];
      crops.push({ id: cropId, kind: 'text', regionId: id, line: n, box: roundBox(cropBounds(crop)), angle: crop.angle, inkWords: words,
        views: images.map((v, k) => ({ id: `${cropId}#${k}`, kind: 'text', width: v.width, height: v.height, pixels: v.data })) });
    });
  });
  return { page, regions, blocks, crops, tables, figures, angle: frame.angle, checkBoxes: checkBoxCandidates(raster, markable) };
}

/**
 * The most tokens a crop can need: a text line holds about two characters per line height of width (three
 * to be safe), and a token is at most one character. Tables and formulas get the caller's limit. This bounds
 * the cost of a model that fails to stop on a line.
 */
export function tokenBudget(crop: PageCrop, limit: number): number {
  if (crop.kind !== 'text') return limit;
  const longest = Math.max(...crop.views.map((v) => v.width / Math.max(1, v.height)));
  return Math.min(limit, Math.ceil(3 * longest) + 16);
}
