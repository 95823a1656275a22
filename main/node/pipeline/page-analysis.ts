// One page from raster to engine inputs: prepare, lay out, and cut the crops the recogniser reads best
// (text as single lines, tables and formulas whole). Region boxes go back to source page coordinates.
import type { RegionInput, RegionKind } from '../../../common/engine-types';
import type { Box, LayoutRegion } from '../../../common/protocol';
import { cropImage, type GrayImage } from './gray-image';
import { analyseLayout, type LayoutBlock } from './layout';
import { preparePage } from './prepare';

export interface PageCrop {
  input: RegionInput;
  /** Layout region this crop belongs to, and its line index within it. */
  regionId: string;
  line: number;
  /** The crop's box in source page pixels (where its fixations lie). */
  box: Box;
}

export interface AnalysedPage {
  page: number;
  regions: LayoutRegion[];
  blocks: LayoutBlock[];
  crops: PageCrop[];
}

function engineKind(kind: LayoutBlock['kind']): RegionKind {
  return kind === 'table' || kind === 'formula' ? kind : 'text';
}

export function regionId(page: number, index: number): string {
  return `p${page}-r${index}`;
}

export function analysePage(page: number, raster: GrayImage): AnalysedPage {
  const prepared = preparePage(raster);
  const { blocks, charHeight } = analyseLayout(prepared.ink, prepared.gray.width, prepared.gray.height);
  const regions: LayoutRegion[] = [];
  const crops: PageCrop[] = [];
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
    const kind = engineKind(block.kind);
    const byLine = kind === 'text' && block.lines.length > 0;
    const parts = byLine ? block.lines : [block.box];
    parts.forEach((box, line) => {
      const cropBox = marginBox(box, byLine);
      const img = cropImage(prepared.gray, cropBox);
      crops.push({ regionId: id, line, box: roundBox(prepared.toSource(cropBox)),
        input: { id: `${id}/${line}`, kind, width: img.width, height: img.height, pixels: img.data } });
    });
  });
  return { page, regions, blocks, crops };
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
  if (crop.input.kind !== 'text') return limit;
  return Math.min(limit, Math.ceil((3 * crop.input.width) / Math.max(1, crop.input.height)) + 16);
}
