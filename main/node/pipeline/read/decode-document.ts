// Decodes the pages of an opened document with the engine: one page rasterised at a time (the next page is
// laid out while the engine reads the current one), the crops of a page handed to the engine a pass at a time
// so it can batch them (every line in its first view; the lines read unsurely in their other views; tables and
// formulas read whole), events streamed as they come, and each page handed over, Markdown written, as soon as
// it is read: nothing of a page outlives it, so memory over a document does not grow with its page count.
import type { DecodeOptions, DecodeResult, RegionInput } from '../../../../common/engine-types';
import type { SessionEvent } from '../../../../common/protocol';
import type { GrayImage } from '../gray-image';
import type { NativeModel } from '../../native-addon';
import { MarkdownWriter, type RecognisedRegion } from '../write/markdown';
import { EventRelay, type FinishedRegion } from './event-relay';
import { sampleRotated } from '../detect/page-frame';
import { pageNets } from '../detect/page-nets';
import { analysePage, DEFAULT_PAGE_ANALYSIS, tokenBudget, type AnalysedPage, type PageAnalysisOptions, type PageCrop } from './page-analysis';
import type { PageSource } from '../source/page-source';
import { ReadingChooser } from './reading-choice';

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
  /** Each page once read, awaited before the next is read: the caller writes it out and need keep nothing. */
  onPage?(page: DecodedPage): void | Promise<void>;
  signal: AbortSignal;
  analysis?: PageAnalysisOptions;
  figures?: FigureSink;
}

export async function decodePages(doc: DocumentHandle, model: NativeModel, run: DocumentRun): Promise<{ cancelled: boolean }> {
  const { options, emit, signal, analysis = DEFAULT_PAGE_ANALYSIS, figures = null } = run;
  const docId = doc.info.docId;
  const wanted = run.pages ?? doc.info.pages.map((p) => p.index);
  for (const p of wanted) {
    if (!doc.info.pages.some((q) => q.index === p)) throw new Error(`page ${p + 1} does not exist (the document has ${doc.info.pages.length})`);
  }
  const started = Date.now();
  let cropsDone = 0;
  let cropsSeen = 0;
  const markdown = new MarkdownWriter();
  let cancelled = false;

  const progress = (pagesLaidOut: number): void => {
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
  const layOut = async (page: number): Promise<{ analysed: AnalysedPage; images: Map<string, string> }> => {
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
  let next: ReturnType<typeof layOut> | null = wanted.length ? layOut(wanted[0]!) : null;
  // A page that fails (or a caller that cannot write one) must not leave the next page's layout unawaited.
  try {
    for (let k = 0; k < wanted.length && next; k++) {
      const { analysed, images } = await next;
      // The raster of the page just analysed is garbage now; only its crops live on.
      next = k + 1 < wanted.length && !signal.aborted ? layOut(wanted[k + 1]!) : null;
      if (signal.aborted) {
        cancelled = true;
        break;
      }
      const inkLines = analysed.crops.filter((c) => c.inkWords.length > 0).map((c) => ({ regionId: c.regionId, box: c.box, inkWords: c.inkWords }));
      emit([{ type: 'page_layout', docId, page: analysed.page, regions: analysed.regions, textAngle: analysed.angle, lines: inkLines }]);
      cropsSeen += analysed.crops.length;
      progress(k + 1);

      const finished = new Map<string, FinishedRegion>();
      const relay = new EventRelay(analysed.crops, analysed.tables, (events) => emit(events), (r) => finished.set(r.regionId, r), () => {
        cropsDone++;
        progress(k + 1);
      });
      const cropsById = new Map(analysed.crops.map((c) => [c.id, c]));
      const chooser = new ReadingChooser(analysed.crops, (events) => relay.push(events), analysis.dropUnsure ? (dropped) => {
        const crop = cropsById.get(dropped.cropId)!;
        emit([{ type: 'unsure_line', docId, regionId: crop.regionId, box: crop.box, text: dropped.text, meanProb: dropped.meanProb }]);
      } : null);
      const viewTokens = new Map<string, number[]>();
      const decodeViews = async (crops: PageCrop[], views: RegionInput[]): Promise<void> => {
        if (views.length === 0 || cancelled || signal.aborted) return;
        const maxNewTokens = Math.max(...crops.map((c) => tokenBudget(c, options.maxNewTokens)));
        const call = model.decode(views, { ...options, maxNewTokens }, (events) => chooser.push(events));
        const abort = () => call.cancel();
        signal.addEventListener('abort', abort, { once: true });
        try {
          const result = await call.promise;
          for (const r of result.regions) viewTokens.set(r.regionId, r.tokens);
          if (result.cancelled) cancelled = true;
        } finally {
          signal.removeEventListener('abort', abort);
        }
      };
      // A limit serves a whole call, so lines (which need few tokens) and whole tables and formulas (which may
      // need the caller's full limit) go in separate calls: a model that fails to stop on one line then costs
      // a line's budget, not a table's. Lines are read in their first view, then the unsure ones in the others.
      const lines = analysed.crops.filter((c) => c.kind === 'text');
      await decodeViews(lines, lines.map((c) => c.views[0]!));
      const again = new Set(chooser.awaiting());
      await decodeViews(lines, lines.flatMap((c) => c.views.filter((v) => again.has(v.id))));
      const whole = analysed.crops.filter((c) => c.kind !== 'text');
      await decodeViews(whole, whole.map((c) => c.views[0]!));
      if (signal.aborted) cancelled = true;
      const results: DecodeResult['regions'] = [];
      const pageRegions: RecognisedRegion[] = [];
      for (const region of analysed.regions) {
        const block = analysed.blocks[analysed.regions.indexOf(region)]!;
        if (analysed.figures.has(region.id)) {
          const image = images.get(region.id);
          if (image) pageRegions.push({ kind: 'figure', lines: [], image });
          continue;
        }
        const done = finished.get(region.id);
        if (!done) continue;
        const tokens = analysed.crops.filter((c) => c.regionId === region.id).flatMap((c) => viewTokens.get(chooser.chosen.get(c.id) ?? '') ?? []);
        const table = analysed.tables.get(region.id);
        results.push({ regionId: region.id, text: table ? done.text : done.lines.join('\n'), tokens, stats: done.stats });
        pageRegions.push({ kind: block.kind, lines: done.lines, table });
      }
      await run.onPage?.({ page: analysed.page, markdown: markdown.page(analysed.page, pageRegions), regions: results, recognised: pageRegions });
      if (cancelled) break;
    }
  } finally {
    if (next) await next.catch(() => undefined);
  }
  return { cancelled };
}
