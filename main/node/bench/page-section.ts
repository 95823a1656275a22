// The benchmark's page section: what a user waits for. The product's own page pipeline (page analysis on the
// pretrained detectors, line crops in two views, regions decoded in batches) reads whole real pages in AR, in
// self-spec with the automatic block size and in AR with the visual fixation pruning image tokens, the runs one
// after the other on each page so that all see the machine in the same state; pages/s, the engine's stages as
// the CLI reports them, word F1 against the page's truth, and whether the Markdown is the same as AR's.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { DEFAULT_DECODE_OPTIONS, type DecodeOptions } from '../../../common/engine-types';
import { loadDatasets, type EvalItem } from '../eval/datasets';
import { markdownPlainText, poolScores, wordScore, type WordScore } from '../eval/text-metrics';
import type { NativeModel } from '../engine/native-addon';
import { decodeDocument, openDocument, type PageReaders } from '../pipeline';

const MODES = ['ar', 'spec', 'ar_pruned'] as const;
type PageMode = (typeof MODES)[number];
/** The runs compared with AR's. */
const AGAINST_AR = ['spec', 'ar_pruned'] as const;
type AgainstAr = (typeof AGAINST_AR)[number];

/** The decode options of each run; keepRatio: the share of image tokens a pruned run's other layers attend to. */
function modeOptions(mode: PageMode, keepRatio: number): DecodeOptions {
  const { fixation } = DEFAULT_DECODE_OPTIONS;
  if (mode === 'ar_pruned') return { ...DEFAULT_DECODE_OPTIONS, mode: 'ar', fixation: { ...fixation, enabled: true, keepRatio } };
  return { ...DEFAULT_DECODE_OPTIONS, mode, blockSize: 'auto' };
}

/**
 * One mode's wall time and engine stages, summed over the pages' regions (decoding as each region's share of
 * its batch's steps: the decoding's wall time), and its committed tokens and forwards.
 */
interface ModeTotals {
  seconds: number;
  encode_s: number;
  prefill_s: number;
  decode_s: number;
  committed: number;
  forwards: number;
}

interface PageRun { markdown: string; totals: ModeTotals }

async function readPage(engine: NativeModel | PageReaders, item: EvalItem, options: DecodeOptions): Promise<PageRun> {
  const started = performance.now();
  const doc = await openDocument(basename(item.image), new Uint8Array(readFileSync(item.image)));
  const totals: ModeTotals = { seconds: 0, encode_s: 0, prefill_s: 0, decode_s: 0, committed: 0, forwards: 0 };
  let markdown = '';
  try {
    await decodeDocument(doc, engine, {
      options,
      pages: null,
      emit: () => {},
      onPage: (page) => {
        markdown += page.markdown;
        for (const { stats } of page.regions) {
          totals.encode_s += stats.encodeMs / 1000;
          totals.prefill_s += stats.prefillMs / 1000;
          totals.decode_s += stats.decodeShareMs / 1000;
          totals.committed += stats.committed;
          totals.forwards += stats.forwards;
        }
      },
      signal: new AbortController().signal,
    });
  } finally {
    doc.close();
  }
  totals.seconds = (performance.now() - started) / 1000;
  return { markdown, totals };
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/**
 * The first `count` scribe pages of `dataRoot` (real-dev), read in each run, then once more in self-spec as the
 * command line reads a run of pages (`readers`: a page per core). Null where the folder holds no scribe pages
 * (a machine without the development data).
 */
export async function pageSection(model: NativeModel, readers: PageReaders, dataRoot: string, count: number, keepRatio: number, log: (line: string) => void) {
  const pages = (await loadDatasets(dataRoot).catch(() => [])).filter((i) => i.dataset === 'scribe').slice(0, count);
  if (pages.length === 0) return null;
  const sums = Object.fromEntries(MODES.map((m) => [m, { seconds: 0, encode_s: 0, prefill_s: 0, decode_s: 0, committed: 0, forwards: 0 }])) as Record<PageMode, ModeTotals>;
  const identical: Record<AgainstAr, number> = { spec: 0, ar_pruned: 0 };
  const scores = Object.fromEntries(MODES.map((m) => [m, [] as WordScore[]])) as Record<PageMode, WordScore[]>;
  const specMarkdown: string[] = [];
  for (const item of pages) {
    const runs = {} as Record<PageMode, PageRun>;
    for (const mode of MODES) {
      runs[mode] = await readPage(model, item, modeOptions(mode, keepRatio));
      for (const key of Object.keys(sums[mode]) as Array<keyof ModeTotals>) sums[mode][key] += runs[mode].totals[key];
      scores[mode].push(wordScore(markdownPlainText(runs[mode].markdown), item.truth));
    }
    specMarkdown.push(runs.spec.markdown);
    const same = (mode: AgainstAr) => runs[mode].markdown === runs.ar.markdown;
    for (const mode of AGAINST_AR) if (same(mode)) identical[mode]++;
    const t = (mode: PageMode) => `${runs[mode].totals.seconds.toFixed(2)} s`;
    log(`page ${item.name.padEnd(16)} ar ${t('ar')}  spec ${t('spec')} (decoding ${runs.ar.totals.decode_s.toFixed(2)} -> ${runs.spec.totals.decode_s.toFixed(2)} s, ${same('spec') ? 'same Markdown' : 'DIFFERENT Markdown'})  pruned ${t('ar_pruned')} (${same('ar_pruned') ? 'same Markdown' : 'Markdown differs'})`);
  }
  // Every core busy: as many pages in flight as there are readers, the run's wall time.
  const started = performance.now();
  const perCore: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: readers.size }, async () => {
    for (let i = next++; i < pages.length; i = next++) perCore[i] = (await readPage(readers, pages[i]!, modeOptions('spec', keepRatio))).markdown;
  }));
  const perCoreSeconds = (performance.now() - started) / 1000;
  const perCoreSame = perCore.filter((md, i) => md === specMarkdown[i]).length;
  log(`pages a page per core (${readers.size} readers, self-spec): ${perCoreSeconds.toFixed(2)} s, Markdown the same as one page at a time on ${perCoreSame} of ${pages.length}`);
  const summary = (mode: PageMode) => {
    const t = sums[mode];
    return {
      pages_per_s: round(pages.length / t.seconds),
      seconds: round(t.seconds, 2),
      stages_s: { image_encoding: round(t.encode_s, 2), prefill: round(t.prefill_s, 2), decoding: round(t.decode_s, 2) },
      tokens_per_forward: round(t.committed / Math.max(1, t.forwards)),
      word_f1: round(poolScores(scores[mode]).f1, 4),
    };
  };
  const against = (mode: AgainstAr) => ({
    pages_per_s: round(sums.ar.seconds / sums[mode].seconds),
    decoding: round(sums.ar.decode_s / Math.max(1e-9, sums[mode].decode_s)),
    identical_markdown: round(identical[mode] / pages.length, 4),
  });
  return {
    pages: pages.length,
    source: 'scribe',
    ar: summary('ar'),
    spec_auto: summary('spec'),
    spec_vs_ar: against('spec'),
    ar_pruned: { keep_ratio: keepRatio, ...summary('ar_pruned') },
    pruned_vs_ar: against('ar_pruned'),
    spec_page_per_core: {
      readers: readers.size,
      pages_per_s: round(pages.length / perCoreSeconds),
      vs_one_page_at_a_time: round(sums.spec.seconds / perCoreSeconds),
      identical_markdown: round(perCoreSame / pages.length, 4),
    },
  };
}
