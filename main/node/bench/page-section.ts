// The benchmark's page section: what a user waits for. The product's own page pipeline (page analysis on the
// pretrained detectors, line crops in two views, regions decoded in batches) reads whole real pages in AR and
// in self-spec with the automatic block size, the two modes one after the other on each page so that both see
// the machine in the same state; pages/s, the engine's stages as the CLI reports them, and whether the
// Markdown is the same.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { DEFAULT_DECODE_OPTIONS, type DecodeOptions } from '../../../common/engine-types';
import { loadDatasets, type EvalItem } from '../eval/datasets';
import type { NativeModel } from '../native-addon';
import { decodeDocument, openDocument } from '../pipeline';

const MODES = ['ar', 'spec'] as const;
type PageMode = (typeof MODES)[number];

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

async function readPage(model: NativeModel, item: EvalItem, mode: PageMode): Promise<PageRun> {
  const options: DecodeOptions = { ...DEFAULT_DECODE_OPTIONS, mode, blockSize: 'auto' };
  const started = performance.now();
  const doc = await openDocument(basename(item.image), new Uint8Array(readFileSync(item.image)));
  const totals: ModeTotals = { seconds: 0, encode_s: 0, prefill_s: 0, decode_s: 0, committed: 0, forwards: 0 };
  let markdown = '';
  try {
    await decodeDocument(doc, model, {
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
 * The first `count` scribe pages of `dataRoot` (real-dev), read in both modes. Null where the folder holds no
 * scribe pages (a machine without the development data).
 */
export async function pageSection(model: NativeModel, dataRoot: string, count: number, log: (line: string) => void) {
  const pages = (await loadDatasets(dataRoot).catch(() => [])).filter((i) => i.dataset === 'scribe').slice(0, count);
  if (pages.length === 0) return null;
  const sums = Object.fromEntries(MODES.map((m) => [m, { seconds: 0, encode_s: 0, prefill_s: 0, decode_s: 0, committed: 0, forwards: 0 }])) as Record<PageMode, ModeTotals>;
  let identical = 0;
  for (const item of pages) {
    const runs = {} as Record<PageMode, PageRun>;
    for (const mode of MODES) {
      runs[mode] = await readPage(model, item, mode);
      for (const key of Object.keys(sums[mode]) as Array<keyof ModeTotals>) sums[mode][key] += runs[mode].totals[key];
    }
    const same = runs.ar.markdown === runs.spec.markdown;
    if (same) identical++;
    log(`page ${item.name.padEnd(16)} ar ${runs.ar.totals.seconds.toFixed(2)} s  spec ${runs.spec.totals.seconds.toFixed(2)} s  decoding ${runs.ar.totals.decode_s.toFixed(2)} -> ${runs.spec.totals.decode_s.toFixed(2)} s  ${same ? 'same Markdown' : 'DIFFERENT Markdown'}`);
  }
  const summary = (t: ModeTotals) => ({
    pages_per_s: round(pages.length / t.seconds),
    seconds: round(t.seconds, 2),
    stages_s: { image_encoding: round(t.encode_s, 2), prefill: round(t.prefill_s, 2), decoding: round(t.decode_s, 2) },
    tokens_per_forward: round(t.committed / Math.max(1, t.forwards)),
  });
  return {
    pages: pages.length,
    source: 'scribe',
    identical_markdown: round(identical / pages.length, 4),
    ar: summary(sums.ar),
    spec_auto: summary(sums.spec),
    spec_vs_ar: { pages_per_s: round(sums.ar.seconds / sums.spec.seconds), decoding: round(sums.ar.decode_s / Math.max(1e-9, sums.spec.decode_s)) },
  };
}
