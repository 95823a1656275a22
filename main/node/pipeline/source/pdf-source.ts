// A PDF's pages, parsed and drawn by pdf.js in a worker thread of its own (pdf-worker.ts) whose heap is
// bounded. pdf.js has no limit on what its parser builds: 190 MB of nested arrays behind a `%PDF-` header
// took the CLI to 4.7 GB and killed it, the next file of the batch unread. Here such a file costs its worker
// and one line. A worker that runs past its time is stopped the same way.
import { basename, dirname, join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { PageInfo } from '../../../../common/protocol';
import type { PageSource } from './page-source';
import type { RenderBudget } from './pdf-render-budget';
import type { PdfCall, PdfReply, PdfRequest } from './pdf-worker';

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
 * Bundled, the worker is an entry point in out/main (this code runs from there or from out/main/chunks). From
 * source, run through tsx (the tests), it is the .ts beside this file, which a worker loads through tsx too.
 */
function startWorker(options: WorkerOptions): Worker {
  if (!__filename.endsWith('.ts')) return new Worker(join(basename(__dirname) === 'chunks' ? dirname(__dirname) : __dirname, 'pdf-worker.js'), options);
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(join(__dirname, 'pdf-worker.ts'))});`, { ...options, eval: true });
}

type Pending = { resolve(reply: PdfReply): void; reject(err: Error): void };

/** One worker, one PDF; requests go one at a time (pages share a canvas there). */
class PdfWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private ids = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Why the worker is gone, once it is. */
  private ended: string | null = null;

  constructor(private readonly heapMb: number) {
    this.worker = startWorker({ resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    // An idle worker does not keep the process alive; a request's timer does while it waits.
    this.worker.unref();
    this.worker.on('message', (reply: PdfReply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      p?.resolve(reply);
    });
    this.worker.on('error', (err: Error & { code?: string }) => {
      this.end(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `reading it needs more than ${this.heapMb} MB of memory` : `the PDF reader failed (${err.message})`);
    });
    this.worker.on('exit', (code) => this.end(`the PDF reader stopped (exit code ${code})`));
  }

  /** Sends a request once the ones before it are answered; past `ms` the worker is stopped. */
  request(message: PdfCall, ms: number, transfer: ArrayBuffer[] = []): Promise<PdfReply> {
    const next = this.queue.then(() => new Promise<PdfReply>((resolve, reject) => {
      if (this.ended) return reject(new Error(this.ended));
      const id = ++this.ids;
      const timer = setTimeout(() => this.end(`it takes more than ${ms / 1000} s to read`), ms);
      this.pending.set(id, {
        resolve: (reply) => { clearTimeout(timer); resolve(reply); },
        reject: (err) => { clearTimeout(timer); reject(err); },
      });
      this.worker.postMessage({ ...message, id } satisfies PdfRequest, transfer);
    }));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Stops the worker; what is waiting fails with `why`. */
  end(why: string): void {
    this.ended ??= why;
    for (const p of this.pending.values()) p.reject(new Error(this.ended));
    this.pending.clear();
    void this.worker.terminate();
  }
}

/** What a reply carries under `key`, or its error. */
function result<K extends 'pages' | 'page'>(reply: PdfReply, key: K): Extract<PdfReply, Record<K, unknown>>[K] {
  if ('error' in reply) throw new Error(reply.error);
  if (!(key in reply)) throw new Error('the PDF reader answered out of turn');
  return (reply as Extract<PdfReply, Record<K, unknown>>)[key];
}

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
  const worker = new PdfWorker(limits.heapMb);
  // pdf.js takes ownership of the buffer it gets, so the worker is handed a copy, moved rather than copied again.
  const copy = bytes.slice();
  const { dpi, fitPixels, maxImagePixels, maxPages, budget } = limits;
  let pages: PageInfo[];
  try {
    pages = result(await worker.request({ op: 'open', bytes: copy, dpi, fitPixels, maxImagePixels, maxPages, budget }, READ_MS, [copy.buffer as ArrayBuffer]), 'pages');
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
        return result(await worker.request({ op: 'render', index }, budget.ms + READ_MS), 'page');
      } catch (err) {
        const message = (err as Error).message;
        throw new Error(message.startsWith(`page ${index + 1} `) ? message : `page ${index + 1} of the PDF could not be rendered (${message})`);
      }
    },
    close: () => worker.end('the document is closed'),
  };
}
