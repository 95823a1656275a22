// `npm run ocr -- <files...> -o <out.md or folder> [--mode ar|spec|mtp|diffusion] [--no-fixation] [--json] [--hocr]`:
// scans to Markdown (and hOCR: words with their boxes and confidences) from the command line. A file that
// cannot be read is reported on one line and the batch goes on; the exit status says whether every file
// succeeded.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { DECODE_MODES, DEFAULT_DECODE_OPTIONS, type DecodeMode, type DecodeOptions } from '../../common/engine-types';
import { defaultModelDir, loadAddon } from './native-addon';
import { decodeDocument, DEFAULT_PAGE_ANALYSIS, firstLineViews, openDocument, type PageAnalysisOptions } from './pipeline';
import { ProgressBar } from './pipeline/progress-bar';
import { RunRecorder } from './run-recorder';

interface CliArgs {
  files: string[];
  out: string | null;
  options: DecodeOptions;
  analysis: PageAnalysisOptions;
  json: boolean;
  hocr: boolean;
  modelDir: string;
  threads: number | undefined;
}

const USAGE = `usage: npm run ocr -- <files...> -o <out.md or folder> [--mode ar|spec|mtp|diffusion] [--no-fixation] [--json] [--hocr]
                     [--keep-ratio R image tokens kept after the focal layers, 1 = all]
                     [--tables cells|whole: read a table cell by cell (default) or whole, in the model's table mode]
                     [--views N: read each text line in N views and keep the surest reading (default 2; 1 is faster)]
                     [--keep-unsure: keep readings the model is unsure of, which are dropped by default]
                     [--model DIR] [--threads N] [--max-tokens N per region] [--batch N regions per forward]
  PDF, PNG, JPEG and TIFF files. With one input, -o may name a .md file; with several it names a folder.
  Without -o the Markdown goes to standard output. --json and --hocr write <name>.json and <name>.hocr beside
  it: the JSON has every region, round and token; hOCR has every word with its box (from where the model
  looked while writing it; needs fixation) and its confidence.`;

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = {
    files: [], out: null, json: false, hocr: false, modelDir: defaultModelDir(), threads: undefined, analysis: { ...DEFAULT_PAGE_ANALYSIS },
    options: { ...DEFAULT_DECODE_OPTIONS, fixation: { ...DEFAULT_DECODE_OPTIONS.fixation } },
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '-o' || a === '--out') args.out = value();
    else if (a === '--mode') {
      const m = value();
      if (!(DECODE_MODES as readonly string[]).includes(m)) throw new Error(`--mode must be one of ${DECODE_MODES.join(', ')}, not ${m}`);
      args.options.mode = m as DecodeMode;
    } else if (a === '--no-fixation') args.options.fixation.enabled = false;
    else if (a === '--keep-ratio') {
      const r = Number(value());
      if (!(r > 0 && r <= 1)) throw new Error(`--keep-ratio must be in (0, 1], not ${argv[i]}`);
      args.options.fixation.keepRatio = r;
    } else if (a === '--tables') {
      const t = value();
      if (t !== 'cells' && t !== 'whole') throw new Error(`--tables must be cells or whole, not ${t}`);
      args.analysis.tables = t;
    } else if (a === '--views') args.analysis.lineViews = firstLineViews(value());
    else if (a === '--keep-unsure') args.analysis.dropUnsure = false;
    else if (a === '--json') args.json = true;
    else if (a === '--hocr') args.hocr = true;
    else if (a === '--model') args.modelDir = value();
    else if (a === '--threads') args.threads = Number(value());
    else if (a === '--max-tokens') args.options.maxNewTokens = Number(value());
    else if (a === '--batch') args.options.batchSize = Number(value());
    else if (a === '-h' || a === '--help') throw new Error(USAGE);
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}\n${USAGE}`);
    else args.files.push(a);
  }
  if (args.files.length === 0) throw new Error(USAGE);
  return args;
}

/** Where each input's Markdown goes: the -o file for a single input, else <folder>/<stem>.md. */
export function outputPaths(files: string[], out: string | null): Array<string | null> {
  if (out === null) return files.map(() => null);
  const isFolder = (() => {
    try {
      return statSync(out).isDirectory();
    } catch {
      return extname(out).toLowerCase() !== '.md';
    }
  })();
  if (!isFolder) {
    if (files.length > 1) throw new Error(`-o ${out} is a file, but ${files.length} inputs need a folder`);
    mkdirSync(dirname(out), { recursive: true });
    return [out];
  }
  mkdirSync(out, { recursive: true });
  const used = new Set<string>();
  return files.map((f) => {
    let stem = basename(f, extname(f));
    for (let k = 2; used.has(stem); k++) stem = `${basename(f, extname(f))}-${k}`;
    used.add(stem);
    return join(out, `${stem}.md`);
  });
}

async function main(): Promise<number> {
  let args: CliArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const outputs = outputPaths(args.files, args.out);
  const addon = loadAddon();
  const model = await addon.loadModel(args.modelDir, args.threads ? { threads: args.threads } : {});
  const controller = new AbortController();
  process.once('SIGINT', () => {
    console.error('\ncancelling...');
    controller.abort();
  });
  const started = Date.now();
  let pages = 0;
  // Tokens in the output, and every token the engine committed (readings later replaced by a line's other
  // view or dropped as unsure included): the engine's rate is the second over its forwards.
  let tokens = 0;
  let committed = 0;
  let forwards = 0;
  let failed = 0;
  const bar = new ProgressBar(process.stderr);
  for (let i = 0; i < args.files.length && !controller.signal.aborted; i++) {
    const file = args.files[i]!;
    let doc;
    try {
      doc = await openDocument(basename(file), new Uint8Array(readFileSync(file)));
    } catch (err) {
      console.error(`error: ${file}: ${(err as Error).message.replace(`${basename(file)}: `, '')}`);
      failed++;
      continue;
    }
    const recorder = new RunRecorder();
    try {
      bar.start(`${basename(file)} (${i + 1}/${args.files.length})`);
      const result = await decodeDocument(doc, model, args.options, null, (events) => {
        if (args.json || args.hocr) recorder.record(events);
        for (const e of events) if (e.type === 'progress') bar.update(e.regionsDone, e.regionsTotal, e.remainingMs);
      }, controller.signal, args.analysis);
      bar.done();
      pages += doc.info.pages.length;
      for (const r of result.regions) {
        tokens += r.stats.tokens;
        committed += r.stats.committed;
        forwards += r.stats.forwards;
      }
      const out = outputs[i];
      if (out) writeFileSync(out, result.markdown);
      else process.stdout.write(result.markdown);
      const beside = (ext: string) => (out ? out.replace(/\.md$/i, '') : basename(file, extname(file))) + ext;
      if (args.json) {
        const json = { document: doc.info, options: args.options, pages: recorder.toJSON(), regions: result.regions, cancelled: result.cancelled };
        writeFileSync(beside('.json'), JSON.stringify(json));
      }
      if (args.hocr) writeFileSync(beside('.hocr'), recorder.toHocr(doc.info));
    } catch (err) {
      bar.done();
      console.error(`error: ${file}: ${(err as Error).message}`);
      failed++;
    } finally {
      doc.close();
    }
  }
  const seconds = (Date.now() - started) / 1000;
  const backend = addon.info().backend;
  console.error(
    `${pages} page(s) from ${args.files.length - failed}/${args.files.length} file(s) in ${seconds.toFixed(1)} s: `
    + `${(pages / Math.max(seconds, 1e-9)).toFixed(3)} pages/s, ${tokens} tokens kept of ${committed} decoded, `
    + `${(committed / Math.max(forwards, 1)).toFixed(2)} tokens per forward, mode ${args.options.mode}, backend ${backend}`,
  );
  model.close();
  return failed > 0 ? 1 : 0;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (err) => {
    console.error(`error: ${(err as Error).message}`);
    process.exit(1);
  });
}
