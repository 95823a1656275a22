// pdf.js in a worker thread of its own (pdf-source.ts starts it with a bounded heap): it parses one PDF, says
// its pages' sizes, and draws a page at a time to 8-bit gray, handed back without a copy. A file that would
// take pdf.js's parser past its heap (190 MB of nested arrays took the whole CLI to 4.7 GB and killed it)
// now ends this thread alone.
import type { PageInfo } from '../../../../common/protocol';
import { serveRequests } from '../../inputs/bounded-worker';
import type { GrayImage } from '../gray-image';
import { fitScale } from './page-fit';
import { renderWithin, type RenderBudget } from './pdf-render-budget';

export type PdfCall =
  | { op: 'open'; bytes: Uint8Array; dpi: number; fitPixels: number; maxImagePixels: number; maxPages: number; budget: RenderBudget }
  | { op: 'render'; index: number };

export type PdfReply = { pages: PageInfo[] } | { page: GrayImage };

interface CanvasAndContext {
  /** @napi-rs/canvas: raw RGBA, row-major, no row padding. */
  canvas: { data(): Uint8Array };
  context: unknown;
}

/** The part of pdf.js's Node canvas factory used here. */
interface CanvasFactory {
  create(w: number, h: number): CanvasAndContext;
  reset(target: CanvasAndContext, w: number, h: number): void;
}

type PdfDocument = Awaited<ReturnType<typeof import('pdfjs-dist/legacy/build/pdf.mjs')['getDocument']>['promise']>;

interface OpenPdf {
  doc: PdfDocument;
  /** Each page's size and drawing resolution: its scale is its dpi over 72. */
  pages: PageInfo[];
  budget: RenderBudget;
  target: CanvasAndContext | null;
}

let open: OpenPdf | null = null;

async function openPdf(request: Extract<PdfCall, { op: 'open' }>): Promise<PageInfo[]> {
  // pdf.js ships ES modules only; the legacy build is the one that runs in Node.
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // An image above maxImageSize is left out of the page rather than decoded (stopAtErrors false: damaged parts
  // are skipped, not fatal).
  const task = pdfjs.getDocument({
    data: request.bytes, verbosity: 0, isEvalSupported: false, stopAtErrors: false, maxImageSize: request.maxImagePixels,
  });
  let doc: PdfDocument;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy();
    throw new Error(`not a readable PDF (${(err as Error).message})`);
  }
  if (doc.numPages > request.maxPages) {
    await doc.destroy();
    throw new Error(`the PDF has ${doc.numPages} pages; the limit is ${request.maxPages}`);
  }
  const pages: PageInfo[] = [];
  try {
    for (let i = 0; i < doc.numPages; i++) {
      const page = await doc.getPage(i + 1);
      const vp = page.getViewport({ scale: request.dpi / 72 });
      const s = (request.dpi / 72) * fitScale(vp.width, vp.height, request.fitPixels);
      const fitted = page.getViewport({ scale: s });
      pages.push({ index: i, width: Math.max(1, Math.floor(fitted.width)), height: Math.max(1, Math.floor(fitted.height)), dpi: s * 72 });
      page.cleanup();
    }
  } catch (err) {
    await doc.destroy();
    throw new Error(`not a readable PDF (${(err as Error).message})`);
  }
  open = { doc, pages, budget: request.budget, target: null };
  return pages;
}

async function renderPage(index: number): Promise<GrayImage> {
  if (!open) throw new Error('no PDF is open');
  const info = open.pages[index];
  if (!info) throw new Error(`page ${index + 1} does not exist`);
  const page = await open.doc.getPage(index + 1);
  const viewport = page.getViewport({ scale: info.dpi! / 72 });
  const factory = (open.doc as unknown as { canvasFactory: CanvasFactory }).canvasFactory;
  // One canvas per document, resized per page.
  open.target = open.target ? (factory.reset(open.target, info.width, info.height), open.target) : factory.create(info.width, info.height);
  try {
    await renderWithin(page.render({ canvasContext: open.target.context, viewport, canvas: open.target.canvas } as never), open.budget);
    // canvas.data() reads the pixels in place; getImageData copies them into memory the canvas library
    // never gives back (about one page of RGBA per call).
    const rgba = open.target.canvas.data();
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
}

// The canvas is shared between pages: requests are served one at a time.
serveRequests<PdfCall, PdfReply>(async (call) => {
  if (call.op === 'open') return { reply: { pages: await openPdf(call) } };
  const page = await renderPage(call.index);
  return { reply: { page }, transfer: [page.data.buffer as ArrayBuffer] };
});
