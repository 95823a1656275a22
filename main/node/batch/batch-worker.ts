// `npm run batch -- work --root DIR [--model DIR]... [--threads N] [--lock-seconds S]`: a worker that reads the
// queue's jobs, one at a time, with the model loaded once (a job of several pages is read a page per core).
// Each job's pages already kept (by an earlier delivery) are skipped, each page read is kept as soon as it is
// read, and the document is written when its last page lands. On SIGTERM or SIGINT the next page read is kept
// (a page read beside it is left to the job's next delivery), the job goes back to the queue for another
// worker, and the worker exits.
import { hostname } from 'node:os';
import { basename, dirname } from 'node:path';
import { UnrecoverableError, WaitingError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { sharp } from '../inputs/image-codec';
import { readInput } from '../inputs/input-file';
import { defaultDecodeMode, defaultModelDir, loadAddon } from '../engine/native-addon';
import { decodeDocument, openDocument } from '../pipeline';
import type { GrayImage } from '../pipeline/gray-image';
import { detectFormat } from '../pipeline/source/page-source';
import { RunRecorder } from '../engine/run-recorder';
import { ReaderEngines } from '../engine/reader-engines';
import { checkJob, decodeSettings, documentKey, insideRoot, QUEUE_NAME, sha256, type DecodeSettings, type PageJob } from './batch-job';
import { JOB_ATTEMPTS, MAX_STALLS } from './batch-queue';
import { documentDone, documentFailed, pageRead, pagesKept } from './batch-state';
import { FolderHandle } from './folder-handle';
import type { PageRecord } from './page-record';
import { PageStore } from './page-store';
import { RedisOutage } from './redis-outage';
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
  /** Whether a job is in hand. */
  reading = false;
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
      // What status shows beside a page being read.
      name: workerName(),
    });
    const outage = new RedisOutage(this.opts.log);
    // Errors while the connection is up are the queue's own, and each is worth its line.
    this.worker.on('error', (err) => (this.redis.status === 'ready' ? this.opts.log(`queue: ${err.message}`) : outage.lost(err.message)));
    this.redis.on('error', (err: Error) => outage.lost(err.message));
    this.redis.on('ready', () => outage.back());
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
    this.reading = true;
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
    } finally {
      this.reading = false;
    }
  }

  private async read(job: Job, data: PageJob): Promise<void> {
    const settings = decodeSettings(data.flags);
    const fail = (message: string) => new UnrecoverableError(message);
    let file: string;
    let bytes: Uint8Array;
    try {
      file = insideRoot(this.opts.root, data.doc);
      bytes = readInput(file);
    } catch (err) {
      throw fail((err as Error).message);
    }
    if (sha256(bytes) !== data.hash) throw fail('it changed since it was added to the batch; add it again');
    if (settings.model !== null && !this.opts.models.includes(settings.model)) throw fail(`the model ${settings.model} is not one this worker was started with (--model)`);
    // The output folder is opened once, here, and every write goes through it (folder-handle.ts).
    let folder: FolderHandle;
    let store: PageStore;
    try {
      folder = FolderHandle.open(this.opts.root, dirname(data.out), true);
    } catch (err) {
      throw fail((err as Error).message);
    }
    try {
      try {
        store = PageStore.open(folder, documentKey(data.hash, settings.key));
      } catch (err) {
        throw fail((err as Error).message);
      }
      try {
        await this.readPages(job, data, settings, file, bytes, store);
      } finally {
        store.close();
      }
    } finally {
      folder.close();
    }
  }

  private async readPages(job: Job, data: PageJob, settings: DecodeSettings, file: string, bytes: Uint8Array, store: PageStore): Promise<void> {
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
        throw new UnrecoverableError((err as Error).message.replace(`${basename(file)}: `, ''));
      }
      try {
        if (doc.info.pages.length !== data.pageCount) throw new UnrecoverableError(`it has ${doc.info.pages.length} pages, not the ${data.pageCount} it was added with`);
        const recorder = new RunRecorder();
        await decodeDocument(doc, await engines.forPages(wanted.length), {
          options, pages: wanted, analysis: settings.analysis, signal: new AbortController().signal,
          emit: (events) => recorder.record(events),
          figures: async ({ page, index, image }) => store.putFigure(page, index, await png(image)),
          onPage: async (page) => {
            const record: PageRecord = {
              v: 2, info: doc.info.pages[page.page]!, recognised: page.recognised,
              hocr: {
                angle: recorder.pageTextAngle(page.page),
                regions: recorder.pageWords(page.page).map(({ region, lines }) => ({ kind: region.kind, box: region.box, lines })),
              },
              json: data.outputs.json ? (recorder.pageJSON(page.page) as object) : null,
            };
            recorder.forget(page.page);
            if (store.put(page.page, record)) await pageRead(this.redis, data.batch);
            await job.updateProgress({ page: page.page });
            if (this.stopping) throw new Stopping();
          },
        });
      } finally {
        doc.close();
      }
    }
    this.opts.log(`${data.doc}: pages ${data.pages[0] + 1}-${data.pages[1] + 1}, ${wanted.length} read in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const kept: number[] = [];
    for (let p = data.pages[0]; p <= data.pages[1]; p++) if (store.has(p)) kept.push(data.place[1] + p);
    await pagesKept(this.redis, data.batch, kept);
    const outputs = { stem: basename(data.out), ...data.outputs };
    if (!store.complete(data.pageCount)) return;
    if (!store.written(outputs)) {
      // Its bytes are the ones its pages were read from (the hash), so their format is known.
      try {
        store.assemble({ docId: store.key, name: basename(file), format: detectFormat(bytes)! }, data.pageCount, settings.options, outputs);
      } catch (err) {
        throw new UnrecoverableError((err as Error).message);
      }
    }
    await documentDone(this.redis, data.batch, data.place[0], data.doc);
  }
}

/** A worker as status names it: its machine and process. */
export function workerName(): string {
  return `${hostname()}:${process.pid}`;
}

/** A figure's pixels as the PNG `npm run ocr` writes. */
function png(image: GrayImage): Promise<Buffer> {
  return sharp(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.length), { raw: { width: image.width, height: image.height, channels: 1 } }).png().toBuffer();
}
