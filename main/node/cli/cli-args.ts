// The CLI's options, checked before any work: a bad one is one line (with the usage) and exit status 2. Its
// own module so that other entry points (the batch commands) read decode options the same way without
// importing the CLI's entry.
import { DECODE_MODES, DEFAULT_DECODE_OPTIONS, type DecodeMode, type DecodeOptions } from '../../../common/engine-types';
import { STANDARD_INPUT } from './cli-inputs';
import { defaultModelDir, maxThreads } from '../engine/native-addon';
import { fraction, MAX_BATCH, MAX_NEW_TOKENS, wholeNumber } from '../inputs/number-options';
import { DEFAULT_PAGE_ANALYSIS, firstLineViews, type PageAnalysisOptions } from '../pipeline';
import { MAX_PAGES } from '../pipeline/source/page-source';

export interface CliArgs {
  files: string[];
  out: string | null;
  force: boolean;
  options: DecodeOptions;
  analysis: PageAnalysisOptions;
  json: boolean;
  hocr: boolean;
  pdf: boolean;
  modelDir: string;
  threads: number | undefined;
  modeGiven: boolean;
}

const USAGE = `usage: npm run ocr -- <files, folders, 'globs' or -...> -o <out.md, out.pdf or folder> [--force] [--mode ar|spec|mtp|diffusion] [--no-fixation] [--json] [--hocr] [--pdf]
                     [--keep-ratio R image tokens kept after the focal layers, in (0, 1]; 1 = all]
                     [--no-reading-prior: a line model reads with its decoder alone, not weighing its encoder's CTC reading]
                     [--tables cells|whole: read a table cell by cell (default) or whole, in the model's table mode]
                     [--views N: read each text line in N views and keep the surest reading (default 2; 1 is faster)]
                     [--keep-unsure: keep readings the model is unsure of, which are dropped by default]
                     [--model DIR: a Saccade checkpoint or a Hugging Face GLM-OCR folder, which reads with --mode mtp (the default for it) or ar, and spec or diffusion once converted to dual mode]
                     [--threads N up to ${maxThreads()}: one page reads on N threads, a run of pages reads N pages at once on one thread each (default: one per core)]
                     [--max-tokens N per region, up to ${MAX_NEW_TOKENS}]
                     [--batch N regions per forward, up to ${MAX_BATCH}] [-- files, even those starting with -]
  PDF, PNG, JPEG and TIFF files (up to ${MAX_PAGES} pages each); - reads one from standard input. A folder is read
  with its subfolders, in sorted order, and so is a quoted glob ('scans/**/*.tif': * and ? within a name, **
  any folders); there a file is read when its content or its extension is a document's. Names with a leading
  dot are passed over; what else is not read (other files, links that leave the folder or lead to a folder, a
  file met again) gets a line, and an output folder inside is not read. Relative paths are taken from the
  folder the command was typed in. With one input, -o may name a .md file, or a .pdf file for the searchable
  PDF alone; with a folder, a glob or several inputs it names a folder, and each document's outputs lie below
  it as the document lies below its folder (in/a/b.pdf -> out/a/b.md); documents of one folder that would
  share a name keep their extensions (a.png.md, a.pdf.md). Without -o the Markdown goes to standard output.
  --json, --hocr and --pdf write <name>.json, <name>.hocr and <name>.pdf beside it: the JSON has every region,
  round and token; hOCR has every word with its box (from where the model looked while writing it; needs
  fixation) and its confidence; the searchable PDF is the input's pages with those words laid over them,
  invisible, where they stand (a PDF's pages and images unchanged). Every output but the PDF is written as its
  pages are read, and a document that fails partway keeps the pages read before. Figures are written beside a
  Markdown file as <name>-p<page>-figure<n>.png and linked from it, put in place when the document ends. An
  output never replaces an input; it replaces another existing file only with --force.`;

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = {
    files: [], out: null, force: false, json: false, hocr: false, pdf: false, modelDir: defaultModelDir(), threads: undefined, modeGiven: false, analysis: { ...DEFAULT_PAGE_ANALYSIS },
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
    else if (a === '--force') args.force = true;
    else if (a === '--mode') {
      const m = value();
      if (!(DECODE_MODES as readonly string[]).includes(m)) throw new Error(`--mode must be one of ${DECODE_MODES.join(', ')}, not ${m}`);
      args.options.mode = m as DecodeMode;
      args.modeGiven = true;
    } else if (a === '--no-fixation') args.options.fixation.enabled = false;
    else if (a === '--no-reading-prior') args.options.readingPrior = false;
    else if (a === '--keep-ratio') args.options.fixation.keepRatio = fraction(a, value());
    else if (a === '--tables') {
      const t = value();
      if (t !== 'cells' && t !== 'whole') throw new Error(`--tables must be cells or whole, not ${t}`);
      args.analysis.tables = t;
    } else if (a === '--views') args.analysis.lineViews = firstLineViews(value());
    else if (a === '--keep-unsure') args.analysis.dropUnsure = false;
    else if (a === '--json') args.json = true;
    else if (a === '--hocr') args.hocr = true;
    else if (a === '--pdf') args.pdf = true;
    else if (a === '--model') args.modelDir = value();
    else if (a === '--threads') args.threads = wholeNumber(a, value(), 1, maxThreads());
    else if (a === '--max-tokens') args.options.maxNewTokens = wholeNumber(a, value(), 1, MAX_NEW_TOKENS);
    else if (a === '--batch') args.options.batchSize = wholeNumber(a, value(), 1, MAX_BATCH);
    else if (a === '-h' || a === '--help') throw new Error(USAGE);
    else if (a === '--') {
      // Everything after it is a file, whatever it starts with.
      args.files.push(...argv.slice(i + 1));
      break;
    } else if (a.startsWith('-') && a !== STANDARD_INPUT) throw new Error(`unknown option ${a}\n${USAGE}`);
    else args.files.push(a);
  }
  if (args.files.length === 0) throw new Error(USAGE);
  if (args.files.filter((f) => f === STANDARD_INPUT).length > 1) throw new Error('standard input (-) can be named once');
  return args;
}
