// The evaluation folders (the layout of real-dev: one subfolder per source, each with a MANIFEST.md that
// describes its ground truth). Subfolders are recognised by name prefix; a missing one is simply skipped.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { sharp } from '../inputs/image-codec';
import type { Box } from '../../../common/protocol';
import { readHocrWords, type PlacedWord } from './word-box-metric';

export type DatasetName = 'scribe' | 'sroie' | 'funsd' | 'ehri_en' | 'ehri_de' | 'pubtabnet' | 'im2latex' | 'omnidocbench';

/** Whole pages scored by word F1 against plain-text truth (SROIE's truth is upper case: compared ignoring case). */
export const WORD_SOURCES = ['scribe', 'sroie', 'funsd', 'ehri_en', 'ehri_de'] as const satisfies readonly DatasetName[];
export type WordSource = (typeof WORD_SOURCES)[number];
export const isWordSource = (d: DatasetName): d is WordSource => (WORD_SOURCES as readonly string[]).includes(d);
/** The language a source's pages are in (Tesseract is given its own model for it where installed). */
export const SOURCE_LANGUAGE: Partial<Record<DatasetName, 'deu'>> = { ehri_de: 'deu' };

export interface EvalItem {
  dataset: DatasetName;
  name: string;
  image: string;
  /** Plain text (the word sources), HTML (pubtabnet), normalised LaTeX (im2latex), or unused (omnidocbench). */
  truth: string;
  /** omnidocbench: reading-order ground truth, blocks in order, in the coordinates of `truthSize`. */
  orderedBlocks?: Box[];
  truthSize?: { width: number; height: number };
  /** scribe, funsd: the ground truth's words with their boxes, in the coordinates of `truthSize`. */
  truthWords?: PlacedWord[];
}

const IMAGE = /\.(png|jpe?g|tiff?)$/i;

function subfolder(root: string, prefix: string): string | null {
  const hit = readdirSync(root, { withFileTypes: true }).find((d) => d.isDirectory() && d.name.startsWith(prefix));
  return hit ? join(root, hit.name) : null;
}

function pairs(imageDir: string, truthDir: string, truthExt: string): Array<{ stem: string; image: string; truth: string }> {
  if (!existsSync(imageDir) || !existsSync(truthDir)) return [];
  return readdirSync(imageDir)
    .filter((f) => IMAGE.test(f))
    .sort()
    .map((f) => ({ stem: f.slice(0, -extname(f).length), image: join(imageDir, f) }))
    .filter((p) => existsSync(join(truthDir, p.stem + truthExt)))
    .map((p) => ({ ...p, truth: readFileSync(join(truthDir, p.stem + truthExt), 'utf8') }));
}

/** Blocks that are read, in ground-truth order: ignored and unordered ones (headers, page numbers) left out. */
function omniOrder(json: string): Box[] {
  const page = JSON.parse(json) as { layout_dets: Array<{ poly: number[]; order: number | null; ignore?: boolean; category_type: string }> };
  return page.layout_dets
    .filter((d) => d.order !== null && d.order !== undefined && !d.ignore && !['header', 'footer', 'page_number', 'abandon', 'figure'].includes(d.category_type))
    .sort((a, b) => a.order! - b.order!)
    .map((d) => {
      const xs = d.poly.filter((_, i) => i % 2 === 0);
      const ys = d.poly.filter((_, i) => i % 2 === 1);
      return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
    });
}

/** An image's size as it is shown (its EXIF orientation applied), or null where its header does not say. */
export async function imageSize(path: string): Promise<{ width: number; height: number } | null> {
  const meta = await sharp(path).metadata();
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  return width && height ? { width, height } : null;
}

/** FUNSD's word list: `[[x0, y0, x1, y1, text], ...]`. */
export function funsdWords(json: string): PlacedWord[] {
  const rows = JSON.parse(json) as unknown;
  if (!Array.isArray(rows)) throw new Error('FUNSD words: expected a list');
  return rows.filter((r): r is [number, number, number, number, string] => Array.isArray(r) && r.length === 5 && typeof r[4] === 'string' && r[4].trim() !== '')
    .map(([x0, y0, x1, y1, text]) => ({ text: text.trim(), box: { x0, y0, x1, y1 } }));
}

export async function loadDatasets(root: string): Promise<EvalItem[]> {
  const items: EvalItem[] = [];
  const scribe = subfolder(root, 'scribe');
  if (scribe) {
    for (const p of pairs(join(scribe, 'images'), join(scribe, 'gt_txt'), '.txt')) {
      const hocr = join(scribe, 'gt_hocr', `${p.stem}.hocr`);
      const placed = existsSync(hocr) ? readHocrWords(readFileSync(hocr, 'utf8')) : null;
      items.push({ dataset: 'scribe', name: p.stem, image: p.image, truth: p.truth,
        ...(placed?.page ? { truthWords: placed.words, truthSize: placed.page } : {}) });
    }
  }
  const sroie = subfolder(root, 'sroie');
  if (sroie) {
    for (const p of pairs(join(sroie, 'images'), join(sroie, 'gt_txt'), '.txt')) items.push({ dataset: 'sroie', name: p.stem, image: p.image, truth: p.truth });
  }
  const funsd = subfolder(root, 'funsd');
  if (funsd) {
    for (const p of pairs(join(funsd, 'images'), join(funsd, 'gt_txt'), '.txt')) {
      const boxes = join(funsd, 'gt_words', `${p.stem}.json`);
      const placed = existsSync(boxes) ? funsdWords(readFileSync(boxes, 'utf8')) : null;
      // FUNSD's boxes are in the pixels of the image itself.
      const size = placed ? await imageSize(p.image) : null;
      items.push({ dataset: 'funsd', name: p.stem, image: p.image, truth: p.truth, ...(placed && size ? { truthWords: placed, truthSize: size } : {}) });
    }
  }
  for (const [dataset, prefix] of [['ehri_en', 'ehri-typescripts-en'], ['ehri_de', 'ehri-typescripts-de']] as const) {
    const dir = subfolder(root, prefix);
    if (!dir) continue;
    for (const p of pairs(join(dir, 'images'), join(dir, 'gt_txt'), '.txt')) items.push({ dataset, name: p.stem, image: p.image, truth: p.truth });
  }
  const pubtabnet = subfolder(root, 'pubtabnet');
  if (pubtabnet) {
    for (const split of ['mini_val', 'examples']) {
      for (const p of pairs(join(pubtabnet, 'images', split), join(pubtabnet, 'gt_html', split), '.html')) {
        items.push({ dataset: 'pubtabnet', name: `${split}/${p.stem}`, image: p.image, truth: p.truth });
      }
    }
  }
  const im2latex = subfolder(root, 'im2latex');
  if (im2latex) {
    for (const p of pairs(join(im2latex, 'images'), join(im2latex, 'gt_latex'), '.tex')) items.push({ dataset: 'im2latex', name: p.stem, image: p.image, truth: p.truth.trim() });
  }
  const omni = subfolder(root, 'omnidocbench');
  if (omni) {
    for (const p of pairs(join(omni, 'images'), join(omni, 'gt_json'), '.json')) {
      // Ground-truth boxes are in page_info's size, which is not always the size of the shipped image (and on
      // some pages is that size turned a quarter: eval.ts truthFrame).
      const info = (JSON.parse(p.truth) as { page_info: { width: number; height: number } }).page_info;
      items.push({ dataset: 'omnidocbench', name: p.stem, image: p.image, truth: '', orderedBlocks: omniOrder(p.truth), truthSize: { width: info.width, height: info.height } });
    }
  }
  return items;
}
