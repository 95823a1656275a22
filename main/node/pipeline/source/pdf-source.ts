// A PDF's pages, parsed and drawn by pdf.js in a worker thread of its own (pdf-worker.ts) whose heap is
// bounded. pdf.js has no limit on what its parser builds: 190 MB of nested arrays behind a `%PDF-` header
// took the CLI to 4.7 GB and killed it, the next file of the batch unread. Here such a file costs its worker
// and one line (bounded-worker.ts). A worker that runs past its time is stopped the same way.
import { join } from 'node:path';
import type { PageInfo } from '../../../../common/protocol';
import type { PageSource } from './rendered-pages';
import type { RenderBudget } from './pdf-render-budget';
import { BoundedWorker, replyField } from '../../inputs/bounded-worker';
import type { PdfCall, PdfReply } from './pdf-worker';

export interface PdfLimits {
  dpi: number;
  /** Pages larger than this at `dpi` are drawn smaller, to fit. */
  fitPixels: number;
  /** Images above this are left out of the page, not decoded. */
  maxImagePixels: number;
  maxPages: number;
  /** Each page's drawing (pdf-render-budget.ts). */
  budget: RenderBudget;
  /** The worker's JS heap, where pdf.js keeps the parsed file. */
  heapMb: number;
}

/** A 2,000-page document's structures take a small part of this; images and the canvas live outside it. */
export const PDF_HEAP_MB = 1024;
/** Time for reading the file's structure, and for a page beyond its drawing budget (a hostile 190 MB file parsed in 30 s here). */
const READ_MS = 120_000;

/**
 * PDFs are parsed one at a time in the process, whoever opens them: many windows (or a page with the token)
 * opening hostile files at once would otherwise have as many parsers growing to their bound together.
 */
let parsing: Promise<unknown> = Promise.resolve();

export function openPdfPages(bytes: Uint8Array, limits: PdfLimits): Promise<Omit<PageSource, 'format'>> {
  const opened = parsing.then(() => openOne(bytes, limits));
  parsing = opened.catch(() => undefined);
  return opened;
}

async function openOne(bytes: Uint8Array, limits: PdfLimits): Promise<Omit<PageSource, 'format'>> {
  const worker = new BoundedWorker<PdfCall, PdfReply>('pdf-worker', join(__dirname, 'pdf-worker.ts'), limits.heapMb, 'reading it');
  // pdf.js takes ownership of the buffer it gets, so the worker is handed a copy, moved rather than copied again.
  const copy = bytes.slice();
  const { dpi, fitPixels, maxImagePixels, maxPages, budget } = limits;
  let pages: PageInfo[];
  try {
    pages = replyField(await worker.request({ op: 'open', bytes: copy, dpi, fitPixels, maxImagePixels, maxPages, budget }, READ_MS, [copy.buffer as ArrayBuffer]), 'pages');
  } catch (err) {
    worker.end('closed');
    const message = (err as Error).message;
    throw new Error(message.startsWith('not a readable PDF') || message.startsWith('the PDF has') ? message : `not a readable PDF (${message})`);
  }
  return {
    pages,
    async render(index) {
      if (!pages[index]) throw new Error(`page ${index + 1} does not exist`);
      try {
        // Drawing has its own budget in the worker; loading the page's images and fonts comes on top.
        return replyField(await worker.request({ op: 'render', index }, budget.ms + READ_MS), 'page');
      } catch (err) {
        const message = (err as Error).message;
        throw new Error(message.startsWith(`page ${index + 1} `) ? message : `page ${index + 1} of the PDF could not be rendered (${message})`);
      }
    },
    close: () => worker.end('the document is closed'),
  };
}
