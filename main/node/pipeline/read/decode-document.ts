// Decodes the pages of an opened document with the engine: pages rasterised and laid out one at a time, one
// ahead of the readers (PageReaders: one engine, or one per core, each reading a page at a time), the crops of
// a page handed to its engine a pass at a time so it can batch them (its check-box candidates, whose confirmed
// boxes cut their lines; every line in its first view; the lines read unsurely in their other views; tables
// and formulas read whole), events streamed as they come, and each page handed over in order, Markdown
// written, as soon as it and the pages before it are read: nothing of a page outlives it, so memory over a
// document does not grow with its page count.
import type { DecodeOptions, DecodeResult, EngineEvent, RegionInput } from '../../../../common/engine-types';
import type { SessionEvent } from '../../../../common/protocol';
import type { GrayImage } from '../gray-image';
import type { NativeModel } from '../../engine/native-addon';
import { MarkdownWriter, type RecognisedRegion } from '../write/markdown';
import { EventRelay, type FinishedRegion } from './event-relay';
import { sampleRotated } from '../detect/page-frame';
import { pageNets } from '../detect/page-nets';
import { analysePage, DEFAULT_PAGE_ANALYSIS, tokenBudget, type AnalysedPage, type PageAnalysisOptions } from './page-analysis';
import type { PageCrop } from './page-crop';
import type { PageSource } from '../source/rendered-pages';
import { confirmCheckBoxes, markEvents, withCheckBoxes } from './check-box-marks';
import { ReadingChooser } from './reading-choice';
import { pageReaders, type PageReaders } from './page-readers';

export interface DocumentHandle {
  info: { docId: string; pages: Array<{ index: number }> };
  source: PageSource;
}

/**
 * Keeps a figure's pixels (the CLI writes them beside the Markdown) and says where, relative to the Markdown;
 * null: the figure is not written and the Markdown has no image for it.
 */
export type FigureSink = (figure: { page: number; index: number; image: GrayImage }) => Promise<string | null>;

/** A page as soon as it is read. */
export interface DecodedPage {
  /** Its index in the document. */
  page: number;
  /** Its Markdown, to append to the Markdown of the pages handed over before it. */
  markdown: string;
  /** Its read regions: text, token ids and the engine's statistics. */
  regions: DecodeResult['regions'];
  /**
   * What its Markdown was written from: a MarkdownWriter given every page's, in order, writes the document's
   * Markdown (the batch workers read pages apart and join them so).
   */
  recognised: RecognisedRegion[];
}

export interface DocumentRun {
  options: DecodeOptions;
  /** The pages to decode, in this order; null: every page. */
  pages: number[] | null;
  /** Layout, progress and engine events, as they come. */
  emit(events: SessionEvent[]): void;
  /**
   * Each page once read, in order, awaited before its reader takes another page: the caller writes it out and
   * need keep nothing.
   */
  onPage?(page: DecodedPage): void | Promise<void>;
  signal: AbortSignal;
  analysis?: PageAnalysisOptions;
  figures?: FigureSink;
}

/** A page laid out: its crops, and where its figures were written. */
interface LaidOutPage {
  analysed: AnalysedPage;
  images: Map<string, string>;
}

/** A page read: what its Markdown is written from once the pages before it are handed over. */
interface ReadPage {
  page: number;
  regions: DecodeResult['regions'];
  recognised: RecognisedRegion[];
  cancelled: boolean;
}

export async function decodePages(doc: DocumentHandle, engine: NativeModel | PageReaders, run: DocumentRun): Promise<{ cancelled: boolean }> {
  const { options, emit, signal, analysis = DEFAULT_PAGE_ANALYSIS, figures = null } = run;
  const readers = pageReaders(engine);
  const docId = doc.info.docId;
  const wanted = run.pages ?? doc.info.pages.map((p) => p.index);
  for (const p of wanted) {
    if (!doc.info.pages.some((q) => q.index === p)) throw new Error(`page ${p + 1} does not exist (the document has ${doc.info.pages.length})`);
  }
  const started = Date.now();
  let cropsDone = 0;
  let cropsSeen = 0;
  let pagesLaidOut = 0;
  const markdown = new MarkdownWriter();
  // Set when the caller cancels, or when a page or the caller's handling of one fails: the pages in flight stop.
  const halt = new AbortController();
  const onAbort = () => halt.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) halt.abort();

  const progress = (): void => {
    // Pages not yet laid out are assumed to hold as many crops as the average page so far.
    const perPage = cropsSeen / Math.max(1, pagesLaidOut);
    const total = Math.max(cropsDone, Math.round(cropsSeen + perPage * (wanted.length - pagesLaidOut)));
    const elapsedMs = Date.now() - started;
    emit([{
      type: 'progress', docId, regionsDone: cropsDone, regionsTotal: total, elapsedMs,
      remainingMs: cropsDone > 0 ? Math.round((elapsedMs / cropsDone) * (total - cropsDone)) : null,
    }]);
  };

  const nets = await pageNets();
  // A page's figures are cut and handed to the sink as it is laid out, while its raster is at hand; the decode
  // keeps only where they were written.
  const layOut = async (page: number): Promise<LaidOutPage> => {
    const raster = await doc.source.render(page);
    const analysed = await analysePage(page, raster, nets, analysis);
    const images = new Map<string, string>();
    let index = 0;
    for (const [id, rect] of figures ? analysed.figures : []) {
      const name = await figures!({ page, index: ++index, image: sampleRotated(raster, rect.box, rect.angle) });
      if (name) images.set(id, name);
    }
    return { analysed, images };
  };

  /** Reads a laid-out page with `model`, its events streamed as they come; cancelled: it stopped partway. */
  const readPage = async ({ analysed, images }: LaidOutPage, model: NativeModel): Promise<ReadPage> => {
    let cancelled = false;
    const viewTokens = new Map<string, number[]>();
    const decodeViews = async (views: RegionInput[], maxNewTokens: number, onEvents: (events: EngineEvent[]) => void): Promise<void> => {
      if (views.length === 0 || cancelled || halt.signal.aborted) return;
      const call = model.decode(views, { ...options, maxNewTokens }, onEvents);
      const abort = () => call.cancel();
      halt.signal.addEventListener('abort', abort, { once: true });
      try {
        const result = await call.promise;
        for (const r of result.regions) viewTokens.set(r.regionId, r.tokens);
        if (result.cancelled) cancelled = true;
      } finally {
        halt.signal.removeEventListener('abort', abort);
      }
    };
    const { crops, tables } = withCheckBoxes(analysed.crops, await confirmCheckBoxes(analysed.checkBoxes, decodeViews), analysed.tables);
    const inkLines = crops.filter((c) => c.inkWords.length > 0).map((c) => ({ regionId: c.regionId, box: c.box, inkWords: c.inkWords }));
    emit([{ type: 'page_layout', docId, page: analysed.page, regions: analysed.regions, textAngle: analysed.angle, lines: inkLines }]);
    cropsSeen += crops.length;
    progress();

    const finished = new Map<string, FinishedRegion>();
    const relay = new EventRelay(crops, tables, (events) => emit(events), (r) => finished.set(r.regionId, r), () => {
      cropsDone++;
      progress();
    });
    const read = crops.filter((c) => c.views.length > 0);
    const cropsById = new Map(read.map((c) => [c.id, c]));
    const chooser = new ReadingChooser(read, (events) => relay.push(events), analysis.dropUnsure ? (dropped) => {
      const crop = cropsById.get(dropped.cropId)!;
      emit([{ type: 'unsure_line', docId, regionId: crop.regionId, box: crop.box, text: dropped.text, meanProb: dropped.meanProb }]);
    } : null);
    for (const c of crops) if (c.checkBox) relay.push(markEvents(c.id, c.checkBox));
    const budget = (cs: PageCrop[]) => Math.max(...cs.map((c) => tokenBudget(c, options.maxNewTokens)));
    const toChooser = (events: EngineEvent[]) => chooser.push(events);
    // A limit serves a whole call, so lines (which need few tokens) and whole tables and formulas (which may
    // need the caller's full limit) go in separate calls: a model that fails to stop on one line then costs
    // a line's budget, not a table's. Lines are read in their first view, then the unsure ones in the others.
    const lines = read.filter((c) => c.kind === 'text');
    await decodeViews(lines.map((c) => c.views[0]!), budget(lines), toChooser);
    const again = new Set(chooser.awaiting());
    await decodeViews(lines.flatMap((c) => c.views.filter((v) => again.has(v.id))), budget(lines), toChooser);
    const whole = read.filter((c) => c.kind !== 'text');
    await decodeViews(whole.map((c) => c.views[0]!), budget(whole), toChooser);
    if (halt.signal.aborted) cancelled = true;
    const results: DecodeResult['regions'] = [];
    const recognised: RecognisedRegion[] = [];
    for (const region of analysed.regions) {
      const block = analysed.blocks[analysed.regions.indexOf(region)]!;
      if (analysed.figures.has(region.id)) {
        const image = images.get(region.id);
        if (image) recognised.push({ kind: 'figure', lines: [], image });
        continue;
      }
      const done = finished.get(region.id);
      if (!done) continue;
      const tokens = crops.filter((c) => c.regionId === region.id).flatMap((c) => viewTokens.get(chooser.chosen.get(c.id) ?? '') ?? []);
      const table = tables.get(region.id);
      results.push({ regionId: region.id, text: table ? done.text : done.lines.join('\n'), tokens, stats: done.stats });
      recognised.push({ kind: block.kind, lines: done.lines, table });
    }
    return { page: analysed.page, regions: results, recognised, cancelled };
  };

  // Pages are laid out in order, one ahead of the readers, and read as readers come free; each is handed over
  // in order, and its reader is free again only then, so at most `readers.size` pages are held at a time. The
  // first page cut off by a cancel is handed over as far as it was read, and none after it.
  let cancelled = false;
  let handedOver: Promise<void> = Promise.resolve();
  // The pages in flight, each until it is read and handed over (the list does not grow with the document).
  const reading = new Set<Promise<void>>();
  let next: Promise<LaidOutPage> | null = wanted.length ? layOut(wanted[0]!) : null;
  try {
    for (let k = 0; k < wanted.length && next; k++) {
      let laid: LaidOutPage;
      try {
        laid = await next;
      } catch (err) {
        // A page that cannot be laid out ends the document once the pages before it are handed over.
        next = null;
        await handedOver;
        throw err;
      }
      pagesLaidOut++;
      // The raster of the page just analysed is garbage now; only its crops live on.
      next = k + 1 < wanted.length && !halt.signal.aborted ? layOut(wanted[k + 1]!) : null;
      const model = await readers.acquire();
      if (halt.signal.aborted) {
        readers.release(model);
        if (signal.aborted) cancelled = true;
        break;
      }
      const read = readPage(laid, model);
      const turn = handedOver.then(async () => {
        const page = await read;
        if (cancelled) return;
        await run.onPage?.({ page: page.page, markdown: markdown.page(page.page, page.recognised), regions: page.regions, recognised: page.recognised });
        if (page.cancelled) cancelled = true;
      });
      handedOver = turn;
      turn.catch(() => halt.abort());
      const both: Promise<void> = Promise.allSettled([read, turn]).then(() => {
        readers.release(model);
        reading.delete(both);
      });
      reading.add(both);
    }
    await handedOver;
  } finally {
    signal.removeEventListener('abort', onAbort);
    halt.abort();
    await Promise.all([...reading]);
    if (next) await next.catch(() => undefined);
  }
  return { cancelled };
}
