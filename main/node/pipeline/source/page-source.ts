// Turns the bytes of a user's file into pages that render one at a time. Formats are told by their magic
// bytes, not the file name. Limits are checked on headers before any pixel is decoded, so a hostile
// 20000x20000 image or a TIFF of 20,000 pages costs next to nothing. PDFs are parsed and drawn by pdf.js in a
// worker thread with a bounded heap (pdf-source.ts).
import { sharp } from '../../inputs/image-codec';
import { fitScale } from './page-fit';
import { largestPdfImage } from './pdf-images';
import { DEFAULT_RENDER_BUDGET, type RenderBudget } from './pdf-render-budget';
import { openPdfPages, PDF_HEAP_MB } from './pdf-source';
import { readTiffPages } from './tiff-pages';
import type { PageInfo } from '../../../../common/protocol';
import type { DocumentFormat, PageSource } from './rendered-pages';


/** Images above this are refused outright (a 600 dpi A3 scan is 70 MP), in PDFs too. */
export const MAX_INPUT_PIXELS = 100_000_000;
/** Pages are worked on at no more than this many pixels (A4 at 400 dpi); larger ones are scaled down. */
export const MAX_PAGE_PIXELS = 16_000_000;
/** Pages of one PDF or TIFF; longer documents are refused. */
export const MAX_PAGES = 2000;
export const DEFAULT_PDF_DPI = 200;

export function detectFormat(bytes: Uint8Array): DocumentFormat | null {
  const b = (i: number) => bytes[i] ?? -1;
  if (b(0) === 0x25 && b(1) === 0x50 && b(2) === 0x44 && b(3) === 0x46) return 'pdf';
  if (b(0) === 0x89 && b(1) === 0x50 && b(2) === 0x4e && b(3) === 0x47) return 'png';
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'jpeg';
  if ((b(0) === 0x49 && b(1) === 0x49 && b(2) === 0x2a && b(3) === 0x00) || (b(0) === 0x4d && b(1) === 0x4d && b(2) === 0x00 && b(3) === 0x2a)) {
    return 'tiff';
  }
  // Some PDF writers put junk before the header; readers accept it within the first kilobyte.
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (head.includes('%PDF-')) return 'pdf';
  return null;
}

export async function openPageSource(bytes: Uint8Array, dpi = DEFAULT_PDF_DPI, budget = DEFAULT_RENDER_BUDGET): Promise<PageSource> {
  if (bytes.length === 0) throw new Error('the file is empty (0 bytes)');
  const format = detectFormat(bytes);
  if (!format) throw new Error('unsupported file format: expected a PDF, PNG, JPEG or TIFF file');
  return format === 'pdf' ? openPdf(bytes, dpi, budget) : openRaster(bytes, format);
}

/** The resolution an image file declares, where it is one a scan or photo can have (not 1 or 72 by default). */
export function declaredDpi(density: number | undefined): number | undefined {
  return density && density >= 100 && density <= 4800 ? density : undefined;
}

async function openRaster(bytes: Uint8Array, format: Exclude<DocumentFormat, 'pdf'>): Promise<PageSource> {
  // The page list first: it bounds everything after it, and reading it costs one pass over the directories.
  const tiffPages = format === 'tiff' ? readTiffPages(bytes, MAX_PAGES) : null;
  let meta: sharp.Metadata;
  try {
    // Reading the header allocates nothing, so sharp's own pixel limit is lifted here and ours applied below.
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new Error(`not a readable ${format.toUpperCase()} image (${(err as Error).message})`);
  }
  // sharp tells formats by their own magic: what it found must be what the bytes said.
  if (meta.format !== format) throw new Error(`not a readable ${format.toUpperCase()} image (it decodes as ${meta.format})`);
  // Each page's size upright (EXIF orientation, or the TIFF tag: 5..8 are stored a quarter turn off).
  const upright: Array<{ width?: number; height?: number }> = tiffPages
    ? tiffPages.slice(0, meta.pages ?? 1).map((p) => (p.orientation >= 5 ? { width: p.height, height: p.width } : p))
    : [{ width: meta.autoOrient?.width ?? meta.width, height: meta.autoOrient?.height ?? meta.height }];
  const pages = upright.map(({ width: w, height: h }, i): PageInfo => {
    if (!w || !h) throw new Error(`page ${i + 1} of the ${format.toUpperCase()} image has no size`);
    if (w * h > MAX_INPUT_PIXELS) {
      throw new Error(`the image is ${w}x${h} pixels (${Math.round((w * h) / 1e6)} MP); the limit is ${MAX_INPUT_PIXELS / 1e6} MP`);
    }
    const s = fitScale(w, h, MAX_PAGE_PIXELS);
    const dpi = declaredDpi(meta.density);
    return { index: i, width: Math.max(1, Math.floor(w * s)), height: Math.max(1, Math.floor(h * s)), ...(dpi ? { dpi: dpi * s } : {}) };
  });
  return {
    format,
    pages,
    async render(index) {
      const page = pages[index];
      if (!page) throw new Error(`page ${index + 1} does not exist`);
      try {
        // Colour to gray with the coefficients the model's preprocessing assumes (docs/model-format.md).
        const { data, info } = await sharp(bytes, { page: index, limitInputPixels: MAX_INPUT_PIXELS })
          .autoOrient()
          .resize(page.width, page.height, { fit: 'fill' })
          .flatten({ background: '#ffffff' })
          .toColourspace('srgb')
          .recomb([[0.299, 0.587, 0.114], [0.299, 0.587, 0.114], [0.299, 0.587, 0.114]])
          .extractChannel(0)
          .raw()
          .toBuffer({ resolveWithObject: true });
        return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
      } catch (err) {
        throw new Error(`page ${index + 1} could not be decoded (${(err as Error).message})`);
      }
    },
    close() {},
  };
}

async function openPdf(bytes: Uint8Array, dpi: number, budget: RenderBudget): Promise<PageSource> {
  const image = largestPdfImage(bytes);
  if (image && image.width * image.height > MAX_INPUT_PIXELS) {
    const mp = Math.round((image.width * image.height) / 1e6);
    throw new Error(`the PDF holds a ${image.width}x${image.height} image (${mp} MP); the limit is ${MAX_INPUT_PIXELS / 1e6} MP`);
  }
  const pdf = await openPdfPages(bytes, {
    dpi, fitPixels: MAX_PAGE_PIXELS, maxImagePixels: MAX_INPUT_PIXELS, maxPages: MAX_PAGES, budget, heapMb: PDF_HEAP_MB,
  });
  return { format: 'pdf', ...pdf };
}
