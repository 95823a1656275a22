// `npm run batch -- work --root DIR [--model DIR]... [--threads N] [--lock-seconds S]`: a worker that reads the
// queue's jobs, one at a time, with the model loaded once (a job of several pages is read a page per core).
// Each job's pages already kept (by an earlier delivery) are skipped, each page read is kept as soon as it is
// read, and the document is written when its last page lands. On SIGTERM or SIGINT the next page read is kept
// (a page read beside it is left to the job's next delivery), the job goes back to the queue for another
// worker, and the worker exits.
import { basename, dirname, join } from 'node:path';
import { UnrecoverableError, WaitingError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { hocrPage } from '../hocr';
import { sharp } from '../image-codec';
import { readInput } from '../input-file';
import { defaultDecodeMode, defaultModelDir, loadAddon } from '../native-addon';
import { decodeDocument, openDocument, type FigureSink } from '../pipeline';
import { detectFormat } from '../pipeline/source/page-source';
import { RunRecorder } from '../run-recorder';
import { ReaderEngines } from '../reader-engines';
import { checkJob, decodeSettings, documentKey, insideRoot, QUEUE_NAME, sha256, type PageJob } from './batch-job';
import { JOB_ATTEMPTS, MAX_STALLS } from './batch-queue';
import { documentDone, documentFailed, pageDone } from './batch-state';
import { PageStore, writeAtomically, type PageRecord } from './page-store';
import { SizedWorker } from './sized-worker';

export interface WorkerOptions {
  root: string;
  /** Model folders a job may name with --model, besides the default. */
  models: string[];
  threads?: number;
  lockMs: number;
  log: (line: string) => void;
}

/** Thrown from a page's handler when the worker is stopping: the page is kept, the job goes back to the queue. */
class Stopping extends Error {}

export class BatchWorker {
  private worker!: SizedWorker;
  private stopping = false;
  private loaded: { dir: string; engines: ReaderEngines } | null = null;
  private readonly addon = loadAddon();

  constructor(private readonly redis: Redis, private readonly opts: WorkerOptions) {}

  start(): void {
    this.worker = new SizedWorker(QUEUE_NAME, (job, token) => this.process(job, token), {
      connection: this.redis,
      concurrency: 1,
      lockDuration: this.opts.lockMs,
      stalledInterval: this.opts.lockMs / 2,
      maxStalledCount: MAX_STALLS,
    });
    this.worker.on('error', (err) => this.opts.log(`queue: ${err.message}`));
  }

  /** Finishes the page being read, hands its job back, and stops taking jobs. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.worker.close();
    await this.loaded?.engines.close();
  }

  /** The engines of the model a job names, loaded once and kept while jobs name it. */
  private async engines(dir: string | null): Promise<ReaderEngines> {
    const wanted = dir ?? defaultModelDir();
    if (dir !== null && !this.opts.models.includes(dir)) {
      throw new UnrecoverableError(`the model ${dir} is not one this worker was started with (--model)`);
    }
    if (this.loaded?.dir !== wanted) {
      await this.loaded?.engines.close();
      this.loaded = null;
      const started = Date.now();
      const engines = new ReaderEngines(this.addon, wanted, this.opts.threads);
      await engines.first();
      this.loaded = { dir: wanted, engines };
      this.opts.log(`model loaded in ${((Date.now() - started) / 1000).toFixed(2)} s: ${wanted}`);
    }
    return this.loaded.engines;
  }

  private async process(job: Job, token: string | undefined): Promise<void> {
    try {
      let data: PageJob;
      try {
        const oversized = this.worker.takeOversized(job.id);
        if (oversized !== null) throw new Error(oversized);
        data = checkJob(job.data);
      } catch (err) {
        throw new UnrecoverableError(`a bad job: ${(err as Error).message}`);
      }
      await this.read(job, data);
    } catch (err) {
      if (err instanceof Stopping) {
        await job.moveToWait(token);
        throw new WaitingError();
      }
      const final = err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? JOB_ATTEMPTS);
      // What a bad job says of itself is used only where it has the shape of a batch id and a short name.
      const raw = (job.data ?? {}) as { batch?: unknown; doc?: unknown };
      const batch = typeof raw.batch === 'string' && /^[0-9a-f]{16}$/.test(raw.batch) ? raw.batch : null;
      const doc = typeof raw.doc === 'string' ? raw.doc.slice(0, 300) : `job ${job.id}`;
      this.opts.log(`${doc}: ${(err as Error).message}${final ? '' : ' (it will be tried again)'}`);
      if (final && batch) await documentFailed(this.redis, batch, doc, (err as Error).message);
      throw err;
    }
  }

  private async read(job: Job, data: PageJob): Promise<void> {
    const settings = decodeSettings(data.flags);
    const fail = (message: string) => new UnrecoverableError(message);
    let file: string;
    let outStem: string;
    let bytes: Uint8Array;
    try {
      file = insideRoot(this.opts.root, data.doc);
      outStem = insideRoot(this.opts.root, data.out);
      bytes = readInput(file);
    } catch (err) {
      throw fail((err as Error).message);
    }
    if (sha256(bytes) !== data.hash) throw fail('it changed since it was added to the batch; add it again');
    const store = new PageStore(outStem, documentKey(data.hash, settings.key));
    const wanted: number[] = [];
    for (let p = data.pages[0]; p <= data.pages[1]; p++) if (!store.has(p)) wanted.push(p);
    const started = Date.now();
    if (wanted.length > 0) {
      const engines = await this.engines(settings.model);
      const options = { ...settings.options, mode: settings.modeGiven ? settings.options.mode : defaultDecodeMode((await engines.first()).info()) };
      let doc;
      try {
        doc = await openDocument(basename(file), bytes);
      } catch (err) {
        throw fail((err as Error).message.replace(`${basename(file)}: `, ''));
      }
      try {
        if (doc.info.pages.length !== data.pageCount) throw fail(`it has ${doc.info.pages.length} pages, not the ${data.pageCount} it was added with`);
        const recorder = new RunRecorder();
        await decodeDocument(doc, await engines.forPages(wanted.length), {
          options, pages: wanted, analysis: settings.analysis, signal: new AbortController().signal,
          emit: (events) => recorder.record(events),
          figures: figureSink(outStem),
          onPage: async (page) => {
            const pageInfo = doc.info.pages[page.page]!;
            const record: PageRecord = {
              info: pageInfo, recognised: page.recognised,
              hocr: hocrPage(pageInfo, recorder.pageWords(page.page), recorder.pageTextAngle(page.page)),
              json: data.outputs.json ? recorder.pageJSON(page.page) : null,
            };
            recorder.forget(page.page);
            if (store.put(page.page, record)) await pageDone(this.redis, data.batch);
            await job.updateProgress({ page: page.page });
            if (this.stopping) throw new Stopping();
          },
        });
      } finally {
        doc.close();
      }
    }
    this.opts.log(`${data.doc}: pages ${data.pages[0] + 1}-${data.pages[1] + 1}, ${wanted.length} read in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (!store.complete(data.pageCount) || store.assembled()) return;
    // Its bytes are the ones its pages were read from (the hash), so their format is known.
    const doc = { docId: store.key, name: basename(file), format: detectFormat(bytes)! };
    if (store.assemble(doc, data.pageCount, settings.options, data.outputs)) await documentDone(this.redis, data.batch, data.doc);
  }
}

/** Figures beside the Markdown, as `npm run ocr` writes them: <name>-p<page>-figure<n>.png. */
function figureSink(outStem: string): FigureSink {
  return async ({ page, index, image }) => {
    const name = `${basename(outStem)}-p${page + 1}-figure${index}.png`;
    const png = await sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.length), { raw: { width: image.width, height: image.height, channels: 1 } }).png().toBuffer();
    writeAtomically(join(dirname(outStem), name), png);
    return name;
  };
}
