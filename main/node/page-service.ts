// `node out/main/page-service.js [--model DIR] [--threads N]`: the model loaded once, reading page images on
// request, for a program that hands Saccade one page at a time (the OCRmyPDF plugin in
// integrations/ocrmypdf). Requests and replies are JSON lines on standard input and output; everything else
// goes to standard error. When the model is loaded it says {"ready":true,...}; then each request
//   {"id": 1, "image": "/abs/page.png", "hocr": "/abs/page.hocr", "text": "/abs/page.txt"}
// is answered, in order, with {"id": 1, "words": N} once the page's hOCR and plain text are written, or with
// {"id": 1, "error": "one line"}, and the service goes on. It ends when its input ends. The hOCR is in the
// image's own pixels, at its own resolution (scan_res), even where the page was read scaled down.
import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { DEFAULT_DECODE_OPTIONS, type DecodeOptions } from '../../common/engine-types';
import type { Box, PageInfo } from '../../common/protocol';
import { boundedLines } from './inputs/bounded-lines';
import { HOCR_TAIL, hocrHead, hocrPage, type HocrRegion } from './exports/hocr';
import { sharp } from './inputs/image-codec';
import { readInput } from './inputs/input-file';
import { defaultDecodeMode, defaultModelDir, loadAddon, maxThreads, type NativeModel } from './engine/native-addon';
import { wholeNumber } from './inputs/number-options';
import { decodeDocument, openDocument, type DecodedPage } from './pipeline';
import { RunRecorder } from './engine/run-recorder';

/** A request line longer than this is refused unread: three paths and an id need far less. */
const MAX_REQUEST_BYTES = 64 * 1024;

interface PageRequest {
  id: number;
  image: string;
  hocr: string;
  text: string;
}

function parseRequest(line: string): PageRequest {
  const r = JSON.parse(line) as Record<string, unknown>;
  if (typeof r !== 'object' || r === null || !Number.isSafeInteger(r.id)) throw new Error('a request needs a whole-number id');
  for (const key of ['image', 'hocr', 'text'] as const) {
    const path = r[key];
    if (typeof path !== 'string' || !isAbsolute(path) || path.includes('\0')) throw new Error(`"${key}" must be an absolute path`);
  }
  return r as unknown as PageRequest;
}

function scaleBox(b: Box, s: number): Box {
  return { x0: b.x0 * s, y0: b.y0 * s, x1: b.x1 * s, y1: b.y1 * s };
}

/** A page's words in the image's own pixels, `s` times the pixels it was read at. */
function scaleRegions(regions: HocrRegion[], s: number): HocrRegion[] {
  if (s === 1) return regions;
  return regions.map(({ region, lines }) => ({
    region: { ...region, box: scaleBox(region.box, s) },
    lines: lines.map((l) => ({ ...l, box: scaleBox(l.box, s), words: l.words.map((w) => ({ ...w, box: scaleBox(w.box, s) })) })),
  }));
}

/** The page's plain text: a line per line, a blank line between regions (what Tesseract's text output holds). */
function plainText(regions: readonly HocrRegion[]): string {
  return regions
    .map(({ lines }) => lines.map((l) => l.words.map((w) => w.text).join(' ')).filter(Boolean).join('\n'))
    .filter(Boolean)
    .map((block) => `${block}\n`)
    .join('\n');
}

/**
 * Writes an output file, which must be a regular file (or not exist yet). A pipe that nobody reads would hold
 * the service forever on its open: O_NONBLOCK makes that open fail at once instead.
 */
function writeOutput(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NONBLOCK | constants.O_NOCTTY, 0o666);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`${path}: ${code === 'ENXIO' ? 'not a regular file' : (err as Error).message}`);
  }
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${path}: not a regular file`);
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
  } finally {
    closeSync(fd);
  }
}

async function readPage(model: NativeModel, options: DecodeOptions, request: PageRequest): Promise<number> {
  const bytes = readInput(request.image);
  const doc = await openDocument('page', bytes);
  try {
    if (doc.info.format === 'pdf') throw new Error('a page image is PNG, JPEG or TIFF, not PDF');
    if (doc.info.pages.length !== 1) throw new Error(`a page image has one page, not ${doc.info.pages.length}`);
    const read = doc.info.pages[0]!;
    const { width } = await sharp(bytes).metadata();
    const s = width ? width / read.width : 1;
    const page: PageInfo = {
      index: 0, width: Math.round(read.width * s), height: Math.round(read.height * s), ...(read.dpi ? { dpi: read.dpi * s } : {}),
    };
    const recorder = new RunRecorder();
    let decoded: DecodedPage | null = null;
    const { cancelled } = await decodeDocument(doc, model, {
      options, pages: null, signal: new AbortController().signal,
      emit: (events) => recorder.record(events),
      onPage: (p) => { decoded = p; },
    });
    if (cancelled || !decoded) throw new Error('the page was not read');
    const regions = scaleRegions(recorder.pageWords(0), s);
    writeOutput(request.hocr, hocrHead({ ...doc.info, pages: [page] }) + hocrPage(page, regions, recorder.pageTextAngle(0)) + HOCR_TAIL);
    writeOutput(request.text, plainText(regions));
    return regions.reduce((n, r) => n + r.lines.reduce((m, l) => m + l.words.length, 0), 0);
  } finally {
    doc.close();
  }
}

function parseArgs(argv: string[]): { modelDir: string; threads?: number } {
  const args: { modelDir: string; threads?: number } = { modelDir: defaultModelDir() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[i + 1];
    if ((a === '--model' || a === '--threads') && v === undefined) throw new Error(`${a} needs a value`);
    if (a === '--model') args.modelDir = argv[++i]!;
    else if (a === '--threads') args.threads = wholeNumber(a, argv[++i]!, 1, maxThreads());
    else throw new Error(`unknown option ${a}; usage: page-service [--model DIR] [--threads N]`);
  }
  return args;
}

async function main(): Promise<number> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const addon = loadAddon();
  const model = await addon.loadModel(args.modelDir, args.threads === undefined ? {} : { threads: args.threads });
  const info = model.info();
  const options: DecodeOptions = { ...DEFAULT_DECODE_OPTIONS, mode: defaultDecodeMode(info) };
  const reply = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);
  reply({ ready: true, model: args.modelDir, backend: addon.info().backend });
  // One page at a time, in the order asked: a line read while a page is being read waits its turn.
  for await (const line of boundedLines(process.stdin, MAX_REQUEST_BYTES)) {
    if (line !== null && !line.trim()) continue;
    let request: PageRequest;
    try {
      if (line === null) throw new Error(`a request is at most ${MAX_REQUEST_BYTES} bytes`);
      request = parseRequest(line);
    } catch (err) {
      reply({ id: null, error: `bad request: ${(err as Error).message}` });
      continue;
    }
    try {
      reply({ id: request.id, words: await readPage(model, options, request) });
    } catch (err) {
      reply({ id: request.id, error: (err as Error).message.split('\n')[0] });
    }
  }
  model.close();
  return 0;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (err) => {
    console.error(`error: ${(err as Error).message}`);
    process.exit(1);
  });
}
