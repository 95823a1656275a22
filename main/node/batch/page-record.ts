// A page as a batch worker keeps it on the shared storage: what its Markdown, hOCR and JSON are written from.
// The storage is shared with others, so a record read back is input like any other: it is taken only within
// its size bound and in the shape a worker writes, and the writers escape its text as they escape the
// engine's. Its hOCR is kept as regions, lines and words and set out in markup when the document is written
// (hocrPage), never as markup; a table's markup must be the tags tableMarkup writes; a figure is named as a
// worker names it in the store (figureName), never a path.
import type { Box, PageInfo } from '../../../common/protocol';
import type { BlockKind } from '../pipeline/assemble/page-layout';
import type { RecognisedRegion } from '../pipeline/write/markdown';
import type { LineBox } from '../pipeline/write/word-boxes';

/** The largest record a worker reads: a dense page's JSON with its rounds and tokens is a few MB. */
export const MAX_RECORD_BYTES = 32 * 1024 * 1024;
const MAX_TEXT = 100_000;
const MAX_ITEMS = 100_000;
const KINDS: ReadonlySet<string> = new Set<BlockKind>(['text', 'table', 'formula', 'title', 'header', 'footer', 'list', 'figure']);
/** tableMarkup's tags, and nothing else. */
const TABLE_MARKUP = /^(?:<\/?(?:table|thead|tbody|tr|td)>|<td colspan="[1-9]\d{0,2}">)*$/;

export interface HocrRegionRecord {
  kind: BlockKind;
  box: Box;
  lines: LineBox[];
}

export interface PageRecord {
  v: 2;
  info: PageInfo;
  /** What its Markdown is written from (DecodedPage.recognised); a figure's image is its name in the store. */
  recognised: RecognisedRegion[];
  /** Its hOCR page's regions (RunRecorder.pageWords) and the page's text angle. */
  hocr: { angle: number; regions: HocrRegionRecord[] };
  /** Its entry in the JSON's pages (RunRecorder.pageJSON); null when the batch writes no JSON. */
  json: object | null;
}

/** A figure's name in the store: p<page>-figure<n>.png, as `npm run ocr` ends a figure's name. */
export function figureName(page: number, index: number): string {
  return `p${page + 1}-figure${index}.png`;
}

class Bad extends Error {}

function fail(what: string): never {
  throw new Bad(what);
}

function object(v: unknown, what: string): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : fail(`${what} is not an object`);
}

function list(v: unknown, what: string): unknown[] {
  return Array.isArray(v) && v.length <= MAX_ITEMS ? v : fail(`${what} is not a list of at most ${MAX_ITEMS}`);
}

function text(v: unknown, what: string): string {
  return typeof v === 'string' && v.length <= MAX_TEXT ? v : fail(`${what} is not a string of at most ${MAX_TEXT} characters`);
}

function number(v: unknown, what: string): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fail(`${what} is not a number`);
}

function box(v: unknown, what: string): Box {
  const b = object(v, what);
  return { x0: number(b.x0, what), y0: number(b.y0, what), x1: number(b.x1, what), y1: number(b.y1, what) };
}

function kind(v: unknown, what: string): BlockKind {
  return typeof v === 'string' && KINDS.has(v) ? (v as BlockKind) : fail(`${what} is not a region kind`);
}

function region(v: unknown, page: number, what: string): RecognisedRegion {
  const r = object(v, what);
  const out: RecognisedRegion = { kind: kind(r.kind, `${what}'s kind`), lines: list(r.lines, `${what}'s lines`).map((l) => text(l, `${what}'s line`)) };
  if (r.table !== undefined) {
    const t = object(r.table, `${what}'s table`);
    const leads = list(t.leads, `${what}'s table`).map((l) => (l === null ? null : text(l, `${what}'s table`)));
    const tail = text(t.tail, `${what}'s table`);
    if (![...leads, tail].every((m) => m === null || TABLE_MARKUP.test(m))) fail(`${what}'s table holds other markup than a table's tags`);
    out.table = { leads, tail };
  }
  if (r.image !== undefined) {
    const image = text(r.image, `${what}'s image`);
    const m = /^p(\d+)-figure(\d+)\.png$/.exec(image);
    if (!m || Number(m[1]) !== page + 1) fail(`${what}'s image is not a figure of its page`);
    out.image = image;
  }
  return out;
}

function line(v: unknown, what: string): LineBox {
  const l = object(v, what);
  const out: LineBox = {
    box: box(l.box, what),
    words: list(l.words, `${what}'s words`).map((w) => {
      const word = object(w, `${what}'s word`);
      return { text: text(word.text, `${what}'s word`), box: box(word.box, `${what}'s word`), confidence: number(word.confidence, `${what}'s word`) };
    }),
  };
  if (l.angle !== undefined) out.angle = number(l.angle, `${what}'s angle`);
  return out;
}

/** The record of page `page`, checked whole; throws one line naming what is wrong. */
export function checkRecord(value: unknown, page: number): PageRecord {
  try {
    const r = object(value, 'the record');
    if (r.v !== 2) fail('the record is not of version 2');
    const i = object(r.info, 'its page');
    if (i.index !== page) fail(`its page is not page ${page + 1}`);
    const info: PageInfo = { index: page, width: number(i.width, 'its width'), height: number(i.height, 'its height') };
    if (i.dpi !== undefined) info.dpi = number(i.dpi, 'its dpi');
    const hocr = object(r.hocr, 'its hOCR');
    if (r.json !== null) object(r.json, 'its JSON');
    return {
      v: 2, info,
      recognised: list(r.recognised, 'its regions').map((x, k) => region(x, page, `region ${k + 1}`)),
      hocr: {
        angle: number(hocr.angle, 'its text angle'),
        regions: list(hocr.regions, 'its hOCR').map((x, k) => {
          const h = object(x, `hOCR region ${k + 1}`);
          return { kind: kind(h.kind, `hOCR region ${k + 1}`), box: box(h.box, `hOCR region ${k + 1}`), lines: list(h.lines, `hOCR region ${k + 1}`).map((l) => line(l, `hOCR region ${k + 1}'s line`)) };
        }),
      },
      json: r.json as object | null,
    };
  } catch (err) {
    if (err instanceof Bad) throw new Error(`the kept page ${page + 1} is not a page record: ${err.message}`);
    throw err;
  }
}
