// `npm run eval -- --json FILE [--data DIR]`: the whole pipeline, Tesseract and RapidOCR side by side on real
// scans nobody here made, timed on the same machine in the same run, each reading a page per core. Keys are flat and dotted
// ("ours.scribe.word_f1", "tesseract.pages_per_s"); a metric that could not be measured is null, with the
// reason under "notes". "items" lists every page or crop with each system's own score and time, so a change in
// a pooled figure can be traced to the documents that moved it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DECODE_MODES, DEFAULT_DECODE_OPTIONS, type DecodeOptions, type RegionKind } from '../../common/engine-types';
import type { Box, LayoutRegion } from '../../common/protocol';
import { imageSize, isWordSource, loadDatasets, SOURCE_LANGUAGE, WORD_SOURCES, type DatasetName, type EvalItem, type WordSource } from './eval/datasets';
import { latexExactMatch } from './eval/latex-match';
import { writePageReport } from './eval/page-report';
import { readingOrderEdit } from './eval/reading-order-metric';
import { RAPIDOCR_PAGES_AT_ONCE, RAPIDOCR_PIN, rapidocrAvailable, RapidReaders, type RapidLine } from './eval/rapidocr';
import { confidenceAuroc, linesLost, numbersExact, wrongCaughtAt, type RankedWord } from './eval/review-metrics';
import { linesAsTable, runTesseract, TESSERACT_PAGES_AT_ONCE, tesseractAvailable } from './eval/tesseract';
import { teds } from './eval/teds';
import { joinHyphenated, markdownPlainText, poolScores, wordScore, type WordScore } from './eval/text-metrics';
import { confidenceSplit, wordBoxHits, type ConfidenceSplit, type PlacedWord } from './eval/word-box-metric';
import { defaultModelDir, loadAddon } from './engine/native-addon';
import { MAX_BATCH, MAX_NEW_TOKENS, wholeNumber } from './inputs/number-options';
import { decodeDocument, DEFAULT_PAGE_ANALYSIS, firstLineViews, openDocument, type PageAnalysisOptions, type PageReaders } from './pipeline';
import { pageNets } from './pipeline/detect/page-nets';
import { analysePage } from './pipeline/read/page-analysis';
import { openPageSource } from './pipeline/source/page-source';
import { isCheckMark } from './pipeline/write/check-marks';
import { RunRecorder } from './engine/run-recorder';
import { ReaderEngines } from './engine/reader-engines';

const DEFAULT_DATA = '/work/shared/data/real-dev';
const FULL_PAGES: DatasetName[] = [...WORD_SOURCES, 'omnidocbench'];

interface SystemOutput {
  /** Markdown or plain text for pages, HTML for tables, LaTeX for formulas. */
  text: string;
  /** Regions in reading order (full pages only), in a frame of `frame` pixels. */
  order: Box[];
  frame: { width: number; height: number };
  /** The words with their boxes on the page (full pages only), in the same frame. */
  words?: PlacedWord[];
  /** Our layout regions (full pages only), for the page report. */
  regions?: LayoutRegion[];
  ms: number;
}

type System = (item: EvalItem) => Promise<SystemOutput>;

interface EvalArgs {
  json: string | null;
  data: string;
  limit: number;
  datasets: string[] | null;
  model: string;
  mode: DecodeOptions['mode'];
  maxTokens: number;
  batch: number;
  tables: PageAnalysisOptions['tables'];
  lineViews: PageAnalysisOptions['lineViews'];
  tesseract: boolean;
  rapidocr: boolean;
  report: string | null;
}

function parseArgs(argv: string[]): EvalArgs {
  const out: EvalArgs = { json: null, data: DEFAULT_DATA, limit: Infinity, datasets: null, model: defaultModelDir(), mode: DEFAULT_DECODE_OPTIONS.mode, maxTokens: DEFAULT_DECODE_OPTIONS.maxNewTokens, batch: DEFAULT_DECODE_OPTIONS.batchSize, tables: DEFAULT_PAGE_ANALYSIS.tables, lineViews: DEFAULT_PAGE_ANALYSIS.lineViews, tesseract: true, rapidocr: true, report: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i] ?? '';
    if (a === '--json') out.json = v();
    else if (a === '--data') out.data = v();
    else if (a === '--limit') out.limit = wholeNumber(a, v(), 1, 1_000_000);
    else if (a === '--datasets') out.datasets = v().split(',');
    else if (a === '--model') out.model = v();
    else if (a === '--mode') {
      const m = v();
      if (!(DECODE_MODES as readonly string[]).includes(m)) throw new Error(`--mode must be one of ${DECODE_MODES.join(', ')}, not ${m}`);
      out.mode = m as DecodeOptions['mode'];
    } else if (a === '--max-tokens') out.maxTokens = wholeNumber(a, v(), 1, MAX_NEW_TOKENS);
    else if (a === '--batch') out.batch = wholeNumber(a, v(), 1, MAX_BATCH);
    else if (a === '--tables') {
      const t = v();
      if (t !== 'cells' && t !== 'whole') throw new Error(`--tables must be cells or whole, not ${t}`);
      out.tables = t;
    } else if (a === '--views') out.lineViews = firstLineViews(v());
    else if (a === '--no-tesseract') out.tesseract = false;
    else if (a === '--no-rapidocr') out.rapidocr = false;
    else if (a === '--report') out.report = v();
    else throw new Error(`unknown argument ${a}\nusage: npm run eval -- --json FILE [--data DIR] [--datasets scribe,sroie,...] [--limit N per dataset] [--model DIR] [--mode ar|spec|mtp|diffusion] [--max-tokens N] [--batch N] [--tables cells|whole] [--views N] [--no-tesseract] [--no-rapidocr] [--report DIR]`);
  }
  return out;
}

const cropKind: Partial<Record<DatasetName, RegionKind>> = { pubtabnet: 'table', im2latex: 'formula' };

function oursWithModel(readers: PageReaders, options: DecodeOptions, analysis: PageAnalysisOptions): System {
  return async (item) => {
    const started = Date.now();
    const bytes = new Uint8Array(readFileSync(item.image));
    const kind = cropKind[item.dataset];
    const byCells = kind === 'table' && analysis.tables === 'cells';
    if (kind && !byCells) {
      // Table and formula benchmarks are crops already: they go to the engine whole, as layout would send them.
      const source = await openPageSource(bytes);
      const img = await source.render(0);
      source.close();
      const model = await readers.acquire();
      const result = await model.decode([{ id: 'crop', kind, width: img.width, height: img.height, pixels: img.data }], options, () => {}).promise
        .finally(() => readers.release(model));
      return { text: result.regions[0]?.text ?? '', order: [], frame: img, ms: Date.now() - started };
    }
    const doc = await openDocument(basename(item.image), bytes);
    const regions: LayoutRegion[] = [];
    const recorder = new RunRecorder();
    try {
      // A table crop read by cells skips page layout: the crop is the table.
      let markdown = '';
      await decodeDocument(doc, readers, {
        options,
        pages: null,
        emit: (events) => {
          recorder.record(events);
          for (const e of events) if (e.type === 'page_layout') regions.push(...e.regions);
        },
        onPage: (page) => void (markdown += page.markdown),
        signal: new AbortController().signal,
        analysis: { ...analysis, pageIsTable: byCells },
      });
      const ms = Date.now() - started;
      const words = recorder.pageWords(0).flatMap((r) => r.lines.flatMap((l) => l.words));
      return { text: markdown, order: readOrder(regions), frame: doc.info.pages[0]!, words, regions, ms };
    } finally {
      doc.close();
    }
  };
}

/** Boxes of the regions read as text, in order: figures are written as images and no truth orders them. */
function readOrder(regions: LayoutRegion[]): Box[] {
  return regions.filter((r) => r.order !== null && r.kind !== 'figure').sort((a, b) => a.order! - b.order!).map((r) => r.box);
}

/** Without an engine only the layout can be measured. */
const oursLayoutOnly: System = async (item) => {
  const started = Date.now();
  const source = await openPageSource(new Uint8Array(readFileSync(item.image)));
  const page = await analysePage(0, await source.render(0), await pageNets());
  source.close();
  return { text: '', order: readOrder(page.regions), frame: source.pages[0]!, ms: Date.now() - started };
};

const tesseract: System = async (item) => {
  const kind = cropKind[item.dataset];
  const page = await runTesseract(item.image, kind ? 6 : null, SOURCE_LANGUAGE[item.dataset] ?? 'eng');
  const frame = (await imageSize(item.image)) ?? { width: 1, height: 1 };
  return { text: kind === 'table' ? linesAsTable(page.lines) : page.text, order: page.blocks, frame,
    words: page.lines.flat().map((w) => ({ text: w.text, box: w.box, confidence: w.conf / 100 })), ms: page.ms };
};

/** RapidOCR has no table structure either: lines that share a row (overlap by half their height) are its cells. */
function rapidLinesAsTable(lines: readonly RapidLine[]): string {
  const rows: RapidLine[][] = [];
  for (const line of [...lines].sort((a, b) => a.box.y0 + a.box.y1 - (b.box.y0 + b.box.y1))) {
    const row = rows.at(-1);
    const h = line.box.y1 - line.box.y0;
    const overlap = row ? Math.min(row[0]!.box.y1, line.box.y1) - Math.max(row[0]!.box.y0, line.box.y0) : 0;
    if (row && overlap > h / 2) row.push(line);
    else rows.push([line]);
  }
  const cells = (row: RapidLine[]) => row.sort((a, b) => a.box.x0 - b.box.x0).map((l) => `<td>${l.text}</td>`).join('');
  return `<table><tbody>${rows.map((r) => `<tr>${cells(r)}</tr>`).join('')}</tbody></table>`;
}

function rapidocr(readers: RapidReaders): System {
  return async (item) => {
    const page = await readers.read(item.image);
    const frame = (await imageSize(item.image)) ?? { width: 1, height: 1 };
    // Its confidence is per line: each word of a line gets the line's score.
    const words = page.lines.flatMap((l) => (l.words.length ? l.words : l.text.split(/\s+/).filter(Boolean).map((text) => ({ text, box: l.box })))
      .map((w) => ({ ...w, confidence: l.score })));
    const kind = cropKind[item.dataset];
    return { text: kind === 'table' ? rapidLinesAsTable(page.lines) : page.lines.map((l) => l.text).join('\n'),
      order: page.lines.map((l) => l.box), frame, words, ms: page.ms };
  };
}

/**
 * The size the ground-truth boxes are in. OmniDocBench's page_info is the shipped image's size with width and
 * height swapped on some pages (a landscape page_info for a portrait image whose boxes reach below its
 * height), while the boxes are in the image's own orientation; scaling by it would squash one axis.
 */
function truthFrame(truth: { width: number; height: number }, frame: { width: number; height: number }) {
  const swapped = truth.width > truth.height !== frame.width > frame.height;
  return swapped ? { width: truth.height, height: truth.width } : truth;
}

interface Scores {
  [key: string]: number | null;
}

/** One item's figure under a system: the metric of its dataset (null when not measured) and the time taken. */
interface ItemScore {
  metric: 'word_f1' | 'teds' | 'exact' | 'reading_order_edit';
  value: number | null;
  ms: number;
}

type ItemScores = Map<string, ItemScore>;
const itemKey = (item: EvalItem) => `${item.dataset}/${item.name}`;
const round4 = (x: number | null) => (x === null ? null : Math.round(x * 10000) / 10000);

interface SourceTally {
  words: WordScore[];
  /** The same with words broken across line ends made whole, in the truth and the output alike. */
  joined: WordScore[];
  boxes: { hits: number; fits: number; total: number };
  split: ConfidenceSplit;
  lines: { lines: number; lost: number };
  /** Every word with a confidence, and whether it is right: how well the confidence ranks the errors first. */
  ranked: RankedWord[];
}

const newTally = (): SourceTally => ({ words: [], joined: [], boxes: { hits: 0, fits: 0, total: 0 }, split: { sure: 0, sureRight: 0, unsure: 0, unsureRight: 0, wrong: 0, wrongFlagged: 0 },
  lines: { lines: 0, lost: 0 }, ranked: [] });

/** Word F1 of a page, and where the truth places its words, the boxes and the confidence split. */
function scoreWords(item: EvalItem & { dataset: WordSource }, out: SystemOutput, plain: string, tally: SourceTally): WordScore {
  const ws = wordScore(plain, item.truth, item.dataset === 'sroie');
  tally.words.push(ws);
  const lost = linesLost(joinHyphenated(plain), joinHyphenated(item.truth), item.dataset === 'sroie');
  tally.lines.lines += lost.lines;
  tally.lines.lost += lost.lost;
  tally.joined.push(wordScore(joinHyphenated(plain), joinHyphenated(item.truth), item.dataset === 'sroie'));
  if (!out.words) return ws;
  // A check box's mark is no word of the page (markdownPlainText leaves it out of the text too).
  const words = out.words.filter((w) => !isCheckMark(w.text));
  if (item.truthWords && item.truthSize) {
    const sx = item.truthSize.width / out.frame.width;
    const sy = item.truthSize.height / out.frame.height;
    const placed = words.map((w) => ({ text: w.text, box: { x0: w.box.x0 * sx, y0: w.box.y0 * sy, x1: w.box.x1 * sx, y1: w.box.y1 * sy } }));
    const h = wordBoxHits(placed, item.truthWords);
    tally.boxes.hits += h.hits;
    tally.boxes.fits += h.fits;
    tally.boxes.total += h.total;
  }
  // A word is on the page as printed, or made whole across a line end (as a reader who reflows the text would).
  const truthText = item.truthWords ? item.truthWords.map((w) => w.text).join(' ') : item.truth;
  // SROIE's transcripts are in capitals: its words are compared without case, as its word F1 is.
  const fold = item.dataset === 'sroie' ? (s: string) => s.toLowerCase() : (s: string) => s;
  const onPage = new Set([...truthText.split(/\s+/), ...joinHyphenated(item.truth).split(/\s+/)].map(fold));
  const c = confidenceSplit(words.map((w) => ({ ...w, text: fold(w.text) })), onPage);
  for (const k of ['sure', 'sureRight', 'unsure', 'unsureRight', 'wrong', 'wrongFlagged'] as const) tally.split[k] += c[k];
  for (const w of words) if (w.confidence !== undefined) tally.ranked.push({ confidence: w.confidence, right: onPage.has(fold(w.text)) });
  return ws;
}

function sourceScores(name: string, source: WordSource, t: SourceTally, recognises: boolean): Scores {
  const key = (k: string) => `${name}.${source}.${k}`;
  if (!recognises || t.words.length === 0) return {};
  const { boxes, split } = t;
  return {
    [key('word_f1')]: round4(poolScores(t.words).f1),
    [key('word_f1_hyphens_joined')]: round4(poolScores(t.joined).f1),
    // Ground-truth lines of three words or more with most of their words nowhere in the output.
    ...(t.lines.lines ? { [key('lines_lost')]: round4(t.lines.lost / t.lines.lines), [key('truth_lines')]: t.lines.lines } : {}),
    ...(boxes.total ? {
      [key('word_box_hit')]: round4(boxes.hits / boxes.total),
      [key('word_box_fit')]: round4(boxes.fits / boxes.total),
      [key('word_box_words')]: boxes.total,
    } : {}),
    // Which words to check: how often a word the system is sure of (or unsure of) is on the page as read.
    ...(split.sure ? { [key('right_when_sure')]: round4(split.sureRight / split.sure), [key('sure_words')]: split.sure } : {}),
    ...(split.unsure ? { [key('right_when_unsure')]: round4(split.unsureRight / split.unsure), [key('unsure_words')]: split.unsure } : {}),
    // Which wrong words the user is sent to: the share of words read wrong that are flagged to check.
    ...(split.wrong ? { [key('wrong_words_flagged')]: round4(split.wrongFlagged / split.wrong), [key('wrong_words')]: split.wrong } : {}),
    // The same question without each system's own threshold: how well its confidence ranks the wrong words first
    // (AUROC), and the share of them caught when it flags its least sure 10% and 20% of words.
    ...(t.ranked.length ? {
      [key('confidence_auroc')]: round4(confidenceAuroc(t.ranked)),
      [key('wrong_caught_at_10')]: round4(wrongCaughtAt(t.ranked, 0.1)),
      [key('wrong_caught_at_20')]: round4(wrongCaughtAt(t.ranked, 0.2)),
    } : {}),
  };
}

/** Each item's output (null where the system failed on it, with a note), `atOnce` items in flight at a time. */
async function runItems(name: string, system: System, items: EvalItem[], atOnce: number, notes: string[]): Promise<(SystemOutput | null)[]> {
  const outs: (SystemOutput | null)[] = new Array(items.length).fill(null);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) {
      const item = items[i]!;
      try {
        outs[i] = await system(item);
        process.stderr.write(`${name}: ${item.dataset}/${item.name} ${outs[i]!.ms} ms\n`);
      } catch (err) {
        notes.push(`${name}: ${item.dataset}/${item.name}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, atOnce) }, worker));
  return outs;
}

/**
 * Scores a system over the items, reading `atOnce` of them at a time: its pages/s is `atOnce` pages over the
 * mean time of a page, each page timed while the others were read beside it.
 */
async function evaluate(name: string, system: System, items: EvalItem[], recognises: boolean, notes: string[], perItem: ItemScores,
  outputs?: Map<string, SystemOutput>, atOnce = 1): Promise<Scores> {
  const tallies = new Map<WordSource, SourceTally>(WORD_SOURCES.map((s) => [s, newTally()]));
  const tedsScores: number[] = [];
  const numbers = { numbers: 0, exact: 0 };
  const exact: boolean[] = [];
  const orderEdits: number[] = [];
  let pageMs = 0;
  let pages = 0;
  const outs = await runItems(name, system, items, atOnce, notes);
  for (const [i, item] of items.entries()) {
    const out = outs[i];
    if (!out) continue;
    if (FULL_PAGES.includes(item.dataset)) {
      pageMs += out.ms;
      pages++;
    }
    const plain = markdownPlainText(out.text);
    let score: Omit<ItemScore, 'ms'> = { metric: 'reading_order_edit', value: null };
    const dataset = item.dataset;
    if (isWordSource(dataset)) {
      const ws = scoreWords({ ...item, dataset }, out, plain, tallies.get(dataset)!);
      score = { metric: 'word_f1', value: recognises ? ws.f1 : null };
    }
    if (item.dataset === 'pubtabnet') {
      tedsScores.push(teds(out.text, item.truth));
      const n = numbersExact(out.text, item.truth);
      numbers.numbers += n.numbers;
      numbers.exact += n.exact;
      score = { metric: 'teds', value: recognises ? tedsScores.at(-1)! : null };
    }
    if (item.dataset === 'im2latex') {
      exact.push(latexExactMatch(out.text, item.truth));
      score = { metric: 'exact', value: recognises ? Number(exact.at(-1)) : null };
    }
    if (item.dataset === 'omnidocbench' && item.orderedBlocks && item.truthSize) {
      const truth = truthFrame(item.truthSize, out.frame);
      const sx = truth.width / out.frame.width;
      const sy = truth.height / out.frame.height;
      const scaled = out.order.map((b) => ({ x0: b.x0 * sx, y0: b.y0 * sy, x1: b.x1 * sx, y1: b.y1 * sy }));
      orderEdits.push(readingOrderEdit(item.orderedBlocks, scaled).edit);
      score = { metric: 'reading_order_edit', value: orderEdits.at(-1)! };
    }
    perItem.set(itemKey(item), { ...score, value: round4(score.value), ms: out.ms });
    if (outputs && isWordSource(item.dataset)) outputs.set(itemKey(item), out);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const scores: Scores = {};
  for (const source of WORD_SOURCES) Object.assign(scores, sourceScores(name, source, tallies.get(source)!, recognises));
  return {
    ...scores,
    [`${name}.pubtabnet.teds`]: recognises ? round4(mean(tedsScores)) : null,
    // The numbers of the tables' cells (sign, decimal point, parentheses and all) found exactly in the output.
    [`${name}.pubtabnet.numbers_exact`]: recognises && numbers.numbers ? round4(numbers.exact / numbers.numbers) : null,
    [`${name}.im2latex.exact`]: recognises ? round4(mean(exact.map(Number))) : null,
    [`${name}.omnidocbench.reading_order_edit`]: round4(mean(orderEdits)),
    [`${name}.pages_per_s`]: recognises && pages ? round4((atOnce * pages) / (pageMs / 1000)) : null,
  };
}

/** One HTML page per word-scored page (eval/page-report.ts), and an index of them worst first. */
function writeReports(dir: string, items: EvalItem[], outputs: Map<string, SystemOutput>, ours: ItemScores, theirs: ItemScores): void {
  mkdirSync(dir, { recursive: true });
  const rows: Array<{ file: string; label: string; f1: number; tess: number | null }> = [];
  for (const item of items) {
    const out = outputs.get(itemKey(item));
    if (!out || !isWordSource(item.dataset)) continue;
    const mine = ours.get(itemKey(item));
    const t = theirs.get(itemKey(item));
    const file = writePageReport(dir, {
      dataset: item.dataset, name: item.name, image: item.image, frame: out.frame, truth: item.truth, caseInsensitive: item.dataset === 'sroie',
      ...(item.truthWords && item.truthSize ? { truthWords: item.truthWords, truthSize: item.truthSize } : {}),
      ours: { text: markdownPlainText(out.text), f1: mine?.value ?? null, regions: out.regions ?? [], words: out.words ?? [], ms: out.ms },
      ...(t ? { tesseract: { f1: t.value, ms: t.ms } } : {}),
    });
    rows.push({ file: basename(file), label: itemKey(item), f1: mine?.value ?? 0, tess: t?.value ?? null });
  }
  rows.sort((a, b) => a.f1 - (a.tess ?? a.f1) - (b.f1 - (b.tess ?? b.f1)));
  const list = rows.map((r) => `<tr><td><a href="${r.file}">${r.label}</a></td><td>${r.f1.toFixed(3)}</td><td>${r.tess === null ? '' : r.tess.toFixed(3)}</td></tr>`).join('');
  writeFileSync(join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><title>Saccade evaluation</title><table><tr><th>page</th><th>ours</th><th>Tesseract</th></tr>${list}</table>`);
  console.error(`eval: page reports in ${join(dir, 'index.html')}`);
}

async function main(): Promise<number> {
  let args: EvalArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`eval: ${(err as Error).message}`);
    return 2;
  }
  const notes: string[] = [];
  if (!existsSync(args.data)) {
    const msg = `eval: the data folder ${args.data} does not exist; nothing to evaluate (pass --data DIR).`;
    console.error(msg);
    if (args.json) writeFileSync(args.json, JSON.stringify({ skipped: msg }, null, 2));
    return 0;
  }
  const perDataset = new Map<string, number>();
  const items = (await loadDatasets(args.data)).filter((it) => !args.datasets || args.datasets.includes(it.dataset)).filter((it) => {
    const n = perDataset.get(it.dataset) ?? 0;
    perDataset.set(it.dataset, n + 1);
    return n < args.limit;
  });
  console.error(`eval: ${items.length} items from ${args.data}`);

  let ours: System = oursLayoutOnly;
  // Ours reads as the command line reads a run of pages: a page per core at once (ReaderEngines), each page
  // timed while the others are read beside it, as Tesseract is.
  let engines: ReaderEngines | null = null;
  let atOnce = 1;
  let backend = 'none';
  try {
    const addon = loadAddon();
    engines = new ReaderEngines(addon, args.model);
    const readers = await engines.forPages(items.length);
    atOnce = readers.size;
    backend = addon.info().backend;
    ours = oursWithModel(readers, { ...DEFAULT_DECODE_OPTIONS, mode: args.mode, maxNewTokens: args.maxTokens, batchSize: args.batch },
      { ...DEFAULT_PAGE_ANALYSIS, tables: args.tables, lineViews: args.lineViews });
  } catch (err) {
    engines = null;
    notes.push(`ours: recognition not measured, only layout: ${(err as Error).message}`);
  }
  const oursItems: ItemScores = new Map();
  const tesseractItems: ItemScores = new Map();
  const rapidItems: ItemScores = new Map();
  const oursOutputs = args.report ? new Map<string, SystemOutput>() : undefined;
  const scores: Scores = { ...(await evaluate('ours', ours, items, engines !== null, notes, oursItems, oursOutputs, atOnce)) };
  await engines?.close();
  const version = args.tesseract ? await tesseractAvailable() : null;
  if (!args.tesseract) notes.push('tesseract: not run (--no-tesseract)');
  else if (version) Object.assign(scores, await evaluate('tesseract', tesseract, items, true, notes, tesseractItems, undefined, TESSERACT_PAGES_AT_ONCE));
  else notes.push('tesseract: not installed (apt-get install tesseract-ocr); its keys are absent');
  const rapidMissing = args.rapidocr ? rapidocrAvailable() : 'not run (--no-rapidocr)';
  if (rapidMissing === null) {
    const readers = new RapidReaders();
    try {
      Object.assign(scores, await evaluate('rapidocr', rapidocr(readers), items, true, notes, rapidItems, undefined, RAPIDOCR_PAGES_AT_ONCE));
    } finally {
      readers.close();
    }
  } else notes.push(`rapidocr: ${rapidMissing}; its keys are absent`);

  const perItem = items.map((item) => ({
    dataset: item.dataset,
    name: item.name,
    ours: oursItems.get(itemKey(item)) ?? null,
    ...(version ? { tesseract: tesseractItems.get(itemKey(item)) ?? null } : {}),
    ...(rapidMissing === null ? { rapidocr: rapidItems.get(itemKey(item)) ?? null } : {}),
  }));
  const report = { ...scores, meta: { data: args.data, items: Object.fromEntries(perDataset), backend, mode: args.mode, batch: args.batch, tables: args.tables, views: args.lineViews.length, pages_at_once: { ours: atOnce, tesseract: TESSERACT_PAGES_AT_ONCE, rapidocr: RAPIDOCR_PAGES_AT_ONCE }, tesseract: version, rapidocr: rapidMissing === null ? RAPIDOCR_PIN : null }, notes, items: perItem };
  if (args.report && oursOutputs) writeReports(args.report, items, oursOutputs, oursItems, tesseractItems);
  for (const [k, v] of Object.entries(scores)) console.log(`${k.padEnd(44)} ${v === null ? 'n/a' : v}`);
  for (const n of notes) console.log(`note: ${n}`);
  if (args.json) writeFileSync(args.json, JSON.stringify(report, null, 2));
  return 0;
}

main().then((code) => process.exit(code), (err) => {
  console.error(`eval: ${(err as Error).message}`);
  process.exit(1);
});
