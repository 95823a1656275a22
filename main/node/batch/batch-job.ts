// What a batch job is: a run of pages of one document, named relative to the root every worker was started
// with, and the decode flags of `npm run ocr` that read it. Job data comes out of Redis and is hostile: it is
// checked whole before any work (a bad job fails alone, with one line), and its paths never leave the root.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { DecodeOptions } from '../../../common/engine-types';
import { parseArgs } from '../cli/cli-args';
import type { PageAnalysisOptions } from '../pipeline';
import { MAX_PAGES } from '../pipeline/source/page-source';

export const QUEUE_NAME = 'saccade-pages';
/** Pages per job: few enough that a lost job costs little, enough that Redis holds one job per 8 pages. */
export const PAGES_PER_JOB = 8;
/** The largest job payload a worker reads: paths, a hash and a few flags need a few kB. */
export const MAX_JOB_BYTES = 16 * 1024;
/** The largest job a worker parses, over all its fields: the payload, BullMQ's own fields and its failed tries' stack traces. */
export const MAX_STORED_JOB_BYTES = 64 * 1024;
const MAX_PATH_CHARS = 4096;
/** Redis's largest bitmap: a batch's pages and documents are bits at their places (batch-state.ts). */
const MAX_PLACE = 2 ** 32;

/** The flags of `npm run ocr` that change what is read, and whether each takes a value. */
const DECODE_FLAGS: ReadonlyMap<string, boolean> = new Map([
  ['--mode', true], ['--no-fixation', false], ['--keep-ratio', true], ['--no-reading-prior', false], ['--tables', true],
  ['--views', true], ['--keep-unsure', false], ['--max-tokens', true], ['--batch', true], ['--model', true],
]);

export interface PageJob {
  v: 2;
  batch: string;
  /** The document, relative to the root. */
  doc: string;
  /** SHA-256 of its bytes when it was added: a document changed since is not read. */
  hash: string;
  /** Its pages this job reads: first and last index, inclusive. */
  pages: [number, number];
  pageCount: number;
  /** Where the document is in its batch: its index among the documents, and its first page's among the pages (batch-state.ts). */
  place: [number, number];
  /** Where its outputs go, relative to the root, without extension: <out>.md, .hocr, .json. */
  out: string;
  flags: string[];
  outputs: { json: boolean; hocr: boolean };
}

export interface DecodeSettings {
  options: DecodeOptions;
  analysis: PageAnalysisOptions;
  /** --model's folder as given; null: the default model. */
  model: string | null;
  /** Whether --mode was given (else the model's own default mode applies, as in the CLI). */
  modeGiven: boolean;
  /** Names these settings: the same flags in any spelling give the same key. */
  key: string;
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The decode flags of `npm run ocr`, checked as the CLI checks them; any other flag is refused. */
export function decodeSettings(flags: readonly string[]): DecodeSettings {
  if (flags.length > 32 || flags.some((f) => typeof f !== 'string' || f.length > MAX_PATH_CHARS)) throw new Error('decode flags: at most 32 short strings');
  for (let i = 0; i < flags.length; i++) {
    const takesValue = DECODE_FLAGS.get(flags[i]!);
    if (takesValue === undefined) throw new Error(`${flags[i]} is not a decode option (${[...DECODE_FLAGS.keys()].join(', ')})`);
    if (takesValue) i++;
  }
  const args = parseArgs([...flags, '--', 'document']);
  const model = flags.includes('--model') ? args.modelDir : null;
  const key = sha256(JSON.stringify({ options: args.options, analysis: args.analysis, model, modeGiven: args.modeGiven }));
  return { options: args.options, analysis: args.analysis, model, modeGiven: args.modeGiven, key };
}

/** A document's results are named by its content and the settings, so the same page is never read twice. */
export function documentKey(hash: string, settingsKey: string): string {
  return sha256(`${hash}\0${settingsKey}`).slice(0, 32);
}

/** A path relative to the root that stays inside it: no absolute path, no '..', no NUL. */
function checkRelative(path: unknown, what: string): string {
  if (typeof path !== 'string' || path.length === 0 || path.length > MAX_PATH_CHARS || path.includes('\0')) throw new Error(`${what} must be a path of at most ${MAX_PATH_CHARS} characters`);
  if (isAbsolute(path) || path.split(/[\\/]/).includes('..')) throw new Error(`${what} ${JSON.stringify(path)} leaves the root`);
  return path;
}

/**
 * `rel` under `root`, with every link on the way resolved: what exists of it must still lie inside the root
 * (a link out of it is refused). The part that does not exist yet (an output) is created inside.
 */
export function insideRoot(root: string, rel: string): string {
  const realRoot = realpathSync(root);
  let at = resolve(realRoot, checkRelative(rel, 'a path'));
  const missing: string[] = [];
  for (;;) {
    try {
      at = realpathSync(at);
      break;
    } catch {
      missing.unshift(basename(at));
      at = dirname(at);
    }
  }
  if (at !== realRoot && !at.startsWith(realRoot + sep)) throw new Error(`${rel} leads out of the root`);
  return join(at, ...missing);
}

/**
 * Why a job as Redis stores it (BullMQ's fields, each a string) is too large to parse, or null. Its size is
 * taken from the strings' lengths (characters, which is what parsing costs) before any is parsed: a payload
 * of hundreds of MB parses into gigabytes of objects.
 */
export function oversizedJob(stored: Readonly<Record<string, unknown>>): string | null {
  let total = 0;
  for (const value of Object.values(stored)) total += typeof value === 'string' ? value.length : 0;
  const data = typeof stored.data === 'string' ? stored.data.length : 0;
  if (data > MAX_JOB_BYTES) return `its payload is ${data} characters, over ${MAX_JOB_BYTES}`;
  if (total > MAX_STORED_JOB_BYTES) return `it is stored in ${total} characters, over ${MAX_STORED_JOB_BYTES}`;
  return null;
}

/** The job's data, checked whole (its size was checked before it was parsed: oversizedJob); throws one line naming what is wrong. */
export function checkJob(data: unknown): PageJob {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('a job is an object');
  const d = data as Record<string, unknown>;
  const known = new Set(['v', 'batch', 'doc', 'hash', 'pages', 'pageCount', 'place', 'out', 'flags', 'outputs']);
  const unknown = Object.keys(d).filter((k) => !known.has(k));
  if (unknown.length) throw new Error(`unknown job field ${unknown[0]}`);
  if (d.v !== 2) throw new Error('job version must be 2');
  if (typeof d.batch !== 'string' || !/^[0-9a-f]{16}$/.test(d.batch)) throw new Error('job batch must be a batch id');
  if (typeof d.hash !== 'string' || !/^[0-9a-f]{64}$/.test(d.hash)) throw new Error('job hash must be a SHA-256');
  const count = d.pageCount;
  if (!Number.isSafeInteger(count) || (count as number) < 1 || (count as number) > MAX_PAGES) throw new Error(`job pageCount must be 1 to ${MAX_PAGES}`);
  const pages = d.pages;
  if (!Array.isArray(pages) || pages.length !== 2 || !pages.every(Number.isSafeInteger) || pages[0] < 0 || pages[0] > pages[1] || pages[1] >= (count as number)) {
    throw new Error('job pages must be [first, last] within the document');
  }
  const place = d.place;
  if (!Array.isArray(place) || place.length !== 2 || !place.every(Number.isSafeInteger) || place[0] < 0 || place[0] >= MAX_PLACE || place[1] < 0 || place[1] + (count as number) > MAX_PLACE) {
    throw new Error(`job place must be [document, first page] within ${MAX_PLACE}`);
  }
  if (!Array.isArray(d.flags)) throw new Error('job flags must be a list');
  decodeSettings(d.flags as string[]);
  const outputs = d.outputs as Record<string, unknown> | null;
  if (typeof outputs !== 'object' || outputs === null || typeof outputs.json !== 'boolean' || typeof outputs.hocr !== 'boolean' || Object.keys(outputs).length !== 2) {
    throw new Error('job outputs must be {json, hocr}');
  }
  return { v: 2, batch: d.batch, doc: checkRelative(d.doc, 'job doc'), hash: d.hash, pages: [pages[0], pages[1]], pageCount: count as number,
    place: [place[0], place[1]], out: checkRelative(d.out, 'job out'), flags: d.flags as string[], outputs: { json: outputs.json, hocr: outputs.hocr } };
}
