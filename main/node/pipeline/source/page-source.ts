// Turns the bytes of a user's file into pages that render one at a time. Formats are told by their magic
// bytes, not the file name. Limits are checked on headers before any pixel is decoded, so a hostile
// 20000x20000 image or a TIFF of 20,000 pages costs next to nothing.
import sharp from 'sharp';
import type { DocumentInfo, PageInfo } from '../../../../common/protocol';
import type { GrayImage } from '../gray-image';
import { largestPdfImage } from './pdf-images';
import { DEFAULT_RENDER_BUDGET, renderWithin, type RenderBudget } from './pdf-render-budget';
import { readTiffPages } from './tiff-pages';

export type DocumentFormat = DocumentInfo['format'];

/** Images above this are refused outright (a 600 dpi A3 scan is 70 MP), in PDFs too. */
export const MAX_INPUT_PIXELS = 100_000_000;
/** Pages are worked on at no more than this many pixels (A4 at 400 dpi); larger ones are scaled down. */
export const MAX_PAGE_PIXELS = 16_000_000;
/** Pages of one PDF or TIFF; longer documents are refused. */
export const MAX_PAGES = 2000;
export const DEFAULT_PDF_DPI = 200;

export interface PageSource {
  format: DocumentFormat;
  pages: PageInfo[];
  /** Renders one page at its PageInfo size; the caller drops it when done. */
  render(index: number): Promise<GrayImage>;
  close(): void;
}

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

function scaleToFit(width: number, height: number): number {
  const px = width * height;
  return px > MAX_PAGE_PIXELS ? Math.sqrt(MAX_PAGE_PIXELS / px) : 1;
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
    const s = scaleToFit(w, h);
    return { index: i, width: Math.max(1, Math.floor(w * s)), height: Math.max(1, Math.floor(h * s)) };
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

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsPromise: Promise<PdfJs> | null = null;

function loadPdfJs(): Promise<PdfJs> {
  // pdf.js ships ES modules only; the legacy build is the one that runs in Node.
  pdfjsPromise ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjsPromise;
}

async function openPdf(bytes: Uint8Array, dpi: number, budget: RenderBudget): Promise<PageSource> {
  const image = largestPdfImage(bytes);
  if (image && image.width * image.height > MAX_INPUT_PIXELS) {
    const mp = Math.round((image.width * image.height) / 1e6);
    throw new Error(`the PDF holds a ${image.width}x${image.height} image (${mp} MP); the limit is ${MAX_INPUT_PIXELS / 1e6} MP`);
  }
  const pdfjs = await loadPdfJs();
  // pdf.js takes ownership of (detaches) the buffer it gets, so it gets a copy. An image above maxImageSize
  // is left out of the page rather than decoded (stopAtErrors false: damaged parts are skipped, not fatal).
  const task = pdfjs.getDocument({
    data: bytes.slice(), verbosity: 0, isEvalSupported: false, stopAtErrors: false, maxImageSize: MAX_INPUT_PIXELS,
  });
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy();
    throw new Error(`not a readable PDF (${(err as Error).message})`);
  }
  if (doc.numPages > MAX_PAGES) {
    await doc.destroy();
    throw new Error(`the PDF has ${doc.numPages} pages; the limit is ${MAX_PAGES}`);
  }
  const pages: PageInfo[] = [];
  const scales: number[] = [];
  try {
    for (let i = 0; i < doc.numPages; i++) {
      const page = await doc.getPage(i + 1);
      const vp = page.getViewport({ scale: dpi / 72 });
      const s = (dpi / 72) * scaleToFit(vp.width, vp.height);
      const fitted = page.getViewport({ scale: s });
      scales.push(s);
      pages.push({ index: i, width: Math.max(1, Math.floor(fitted.width)), height: Math.max(1, Math.floor(fitted.height)) });
      page.cleanup();
    }
  } catch (err) {
    await doc.destroy();
    throw new Error(`not a readable PDF (${(err as Error).message})`);
  }
  const factory = (doc as unknown as { canvasFactory: CanvasFactory }).canvasFactory;
  let target: CanvasAndContext | null = null;
  // Renders share the canvas, so they run one after another even if callers overlap.
  let queue: Promise<unknown> = Promise.resolve();
  const renderPage = async (index: number): Promise<GrayImage> => {
    const info = pages[index];
    if (!info) throw new Error(`page ${index + 1} does not exist`);
    const page = await doc.getPage(index + 1);
    const viewport = page.getViewport({ scale: scales[index] ?? dpi / 72 });
    // One canvas per document, resized per page.
    target = target ? (factory.reset(target, info.width, info.height), target) : factory.create(info.width, info.height);
    try {
      await renderWithin(page.render({ canvasContext: target.context, viewport, canvas: target.canvas } as never), budget);
      // canvas.data() reads the pixels in place; getImageData copies them into memory the canvas library
      // never gives back (about one page of RGBA per call).
      const rgba = target.canvas.data();
      const gray = new Uint8Array(info.width * info.height);
      for (let p = 0, q = 0; p < gray.length; p++, q += 4) {
        gray[p] = Math.round(0.299 * rgba[q]! + 0.587 * rgba[q + 1]! + 0.114 * rgba[q + 2]!);
      }
      return { width: info.width, height: info.height, data: gray };
    } catch (err) {
      throw new Error(`page ${index + 1} of the PDF could not be rendered (${(err as Error).message})`);
    } finally {
      page.cleanup();
    }
  };
  return {
    format: 'pdf',
    pages,
    render(index) {
      const next = queue.then(() => renderPage(index));
      queue = next.catch(() => undefined);
      return next;
    },
    close() {
      if (target) factory.destroy(target);
      void doc.destroy();
    },
  };
}

interface CanvasAndContext {
  /** @napi-rs/canvas: raw RGBA, row-major, no row padding. */
  canvas: { data(): Uint8Array };
  context: unknown;
}

/** The part of pdf.js's Node canvas factory used here. */
interface CanvasFactory {
  create(w: number, h: number): CanvasAndContext;
  reset(target: CanvasAndContext, w: number, h: number): void;
  destroy(target: CanvasAndContext): void;
}
