// One page from raster to engine inputs: prepare, lay out, and cut the crops the recogniser reads best
// (text as single lines, tables and formulas whole). Region boxes go back to source page coordinates.
import type { RegionInput, RegionKind } from '../../../common/engine-types';
import type { Box, LayoutRegion } from '../../../common/protocol';
import { cropImage, type GrayImage } from './gray-image';
import { inkWords } from './ink-words';
import { analyseLayout, analyseTable, type LayoutBlock } from './layout';
import { LINE_VIEWS, lineView, type LineView } from './line-views';
import { preparePage } from './prepare';
import { tableMarkup, type TableMarkup } from './table-markup';

export interface PageAnalysisOptions {
  /**
   * Tables read cell by cell, each cell a text line, the table rebuilt from the grid layout found ('cells');
   * or whole, by the model's table mode ('whole'). docs/decisions/0014-tables-read-by-cells.md
   */
  tables: 'cells' | 'whole';
  /** The page is one table (a table crop): layout is skipped. */
  pageIsTable: boolean;
  /** Views every text line is read in (the first alone when there is one). docs/decisions/0015-line-views.md */
  lineViews: readonly LineView[];
  /** A line or cell whose reading the model is unsure of reads as empty (reading-choice.ts). */
  dropUnsure: boolean;
}

export const DEFAULT_PAGE_ANALYSIS: PageAnalysisOptions = { tables: 'cells', pageIsTable: false, lineViews: LINE_VIEWS, dropUnsure: true };

export interface PageCrop {
  /** The id the crop's events carry once one reading of it is kept: `region/line`. */
  id: string;
  kind: RegionKind;
  /** What the engine reads: a text line in each line view (ids `region/line#view`), a table or formula whole. */
  views: RegionInput[];
  /** Layout region this crop belongs to, and its line index within it. */
  regionId: string;
  line: number;
  /** The crop's box in source page pixels (where its fixations lie). */
  box: Box;
  /** A line's groups of ink (about its words), in source page pixels; empty for a crop read whole. */
  inkWords: Box[];
  /**
   * A line whose ink is lower than half a letter: rules, dashes, dots and underscores fit in it, no letter or
   * digit does (reading-choice.ts drops a reading of it that has one).
   */
  flat: boolean;
}

export interface AnalysedPage {
  page: number;
  regions: LayoutRegion[];
  blocks: LayoutBlock[];
  crops: PageCrop[];
  /** Tables read by cells, by region id: the HTML around their cells' text. */
  tables: Map<string, TableMarkup>;
}

function engineKind(kind: LayoutBlock['kind']): RegionKind {
  return kind === 'table' || kind === 'formula' ? kind : 'text';
}

/** Height of a flat line's ink, in the page's letter heights (layout.ts measures them). */
const FLAT_LINE = 0.5;

export function regionId(page: number, index: number): string {
  return `p${page}-r${index}`;
}

export function analysePage(page: number, raster: GrayImage, options: PageAnalysisOptions = DEFAULT_PAGE_ANALYSIS): AnalysedPage {
  const prepared = preparePage(raster);
  const { width, height } = prepared.gray;
  const { blocks, charHeight } = options.pageIsTable ? analyseTable(prepared.ink, width, height) : analyseLayout(prepared.ink, width, height);
  const regions: LayoutRegion[] = [];
  const crops: PageCrop[] = [];
  const tables = new Map<string, TableMarkup>();
  // Margins as the recogniser saw them in training (training/saccade/synth/regions.py): for a line, up to a
  // third of its height at the sides and a sixth above and below; a few pixels around a table or formula.
  const wholePad = Math.max(2, Math.round(0.4 * charHeight));
  const marginBox = (b: Box, line: boolean): Box => {
    const h = b.y1 - b.y0;
    const side = line ? Math.max(2, Math.round(0.25 * h)) : wholePad;
    const vertical = line ? Math.max(1, Math.round(0.12 * h)) : wholePad;
    return { x0: b.x0 - side, y0: b.y0 - vertical, x1: b.x1 + side, y1: b.y1 + vertical };
  };
  blocks.forEach((block, i) => {
    const id = regionId(page, i);
    regions.push({ id, page, kind: block.kind, box: roundBox(prepared.toSource(block.box)), order: block.order });
    if (block.order === null) return;
    const byCells = block.kind === 'table' && options.tables === 'cells' && (block.grid?.cells.length ?? 0) > 0;
    if (byCells) tables.set(id, tableMarkup(block.grid!));
    const kind = byCells ? 'text' : engineKind(block.kind);
    const byLine = byCells || (kind === 'text' && block.lines.length > 0);
    const parts = byCells ? block.grid!.cells.flatMap((c) => c.lines) : byLine ? block.lines : [block.box];
    parts.forEach((box, line) => {
      const cropBox = marginBox(box, byLine);
      const img = cropImage(prepared.gray, cropBox);
      const cropId = `${id}/${line}`;
      const images = byLine && options.lineViews.length > 0 ? options.lineViews.map((v) => lineView(img, v)) : [img];
      const ink = byLine ? inkWords(prepared.ink, width, height, box).map((b) => roundBox(prepared.toSource(b))) : [];
      const flat = byLine && box.y1 - box.y0 < FLAT_LINE * charHeight;
      crops.push({ id: cropId, kind, regionId: id, line, box: roundBox(prepared.toSource(cropBox)), inkWords: ink, flat,
        views: images.map((v, k) => ({ id: `${cropId}#${k}`, kind, width: v.width, height: v.height, pixels: v.data })) });
    });
  });
  return { page, regions, blocks, crops, tables };
}

function roundBox(b: LayoutRegion['box']): LayoutRegion['box'] {
  return { x0: Math.round(b.x0), y0: Math.round(b.y0), x1: Math.round(b.x1), y1: Math.round(b.y1) };
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
