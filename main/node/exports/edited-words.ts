// The user's edited Markdown laid onto the words the model read, for the app's searchable PDF: every word of
// the edited text gets a box on its page. The edited text's words (Markdown markup dropped, the way the
// decoded words were cut: tags out, entities read, split at whitespace) are aligned with the decoded words by
// a longest common subsequence, page by page where the page breaks the editor wrote are still there:
//
// - a word the alignment pairs with a decoded word, or that replaces one where as many words were replaced as
//   were read between two kept ones, takes that decoded word's box;
// - a line that gained or lost words has its words spread over the line's box, each as wide as its characters;
// - a line the user typed that pairs with a decoded line left without any of its words (a line rewritten
//   whole) takes that line's box; any other added line is placed one line height under the decoded line
//   before it (above the next one where none comes before it on the page, at the top of the page where the
//   page has no decoded line), as wide as its characters are in that line.
//
// So nothing the user typed is lost from the text layer, and what the user left as it was stays where the
// model read it. Pure: no I/O, bounded by the alignment's own cap (common/word-alignment.ts).
import type { Box, PageInfo } from '../../../common/protocol';
import { quarterTurns, turnBox } from '../../../common/quarter-turns';
import { alignTokens } from '../../../common/word-alignment';
import type { HocrRegion } from './hocr';
import { unescapeHtml } from '../pipeline/write/table-markup';
import type { LineBox, WordBox } from '../pipeline/write/word-boxes';

/** A page as it was decoded: its read regions in reading order, with their lines and words (RunRecorder.pageWords). */
export interface DecodedPage {
  page: number;
  /** The direction the page's text runs in (PageLayoutEvent.textAngle), for lines that do not carry their own. */
  textAngle: number;
  regions: readonly HocrRegion[];
}

/** Tags (a table's, a page break's comment), not a lone '<' of the text. */
const TAG = /<[!/]?[A-Za-z!-][^<>]*>/g;
/** Words that are only Markdown wherever they stand: table pipes and separator rows, display math fences, rules. */
const MARKUP_WORD = /^(?:\|+|\$\$|[-*_=]{3,}|\|?(?::?-+:?\|)+(?::?-+:?)?)$/;
/** Words that are Markdown at a line's start: a heading's hashes, a quote, a bullet. */
const LINE_START_MARKUP = /^(?:#{1,6}|>|[-*+])$/;
/** Emphasis and code marks around a word. */
const EMPHASIS = /^(?:\*{1,3}|_{1,3}|~~|`)+|(?:\*{1,3}|_{1,3}|~~|`)+$/g;
const PAGE_MARK = /^\s*<!--\s*page\s+(\d{1,6})\s*-->\s*$/;

/** The plain words of a piece of Markdown; `lineStart`: it begins a line, where '#', '>' and bullets are markup. */
export function plainWords(text: string, lineStart: boolean): string[] {
  const words: string[] = [];
  for (const raw of unescapeHtml(text.replace(TAG, ' ')).split(/\s+/)) {
    if (!raw || MARKUP_WORD.test(raw)) continue;
    if (lineStart && words.length === 0 && LINE_START_MARKUP.test(raw)) continue;
    const bare = raw.replace(EMPHASIS, '');
    if (bare) words.push(bare);
  }
  return words;
}

interface DecodedLine {
  page: number;
  region: number;
  index: number;
  line: LineBox;
  /** Quarter turns of the line's text on the page. */
  turns: number;
  slots: Slot[];
}

/** A decoded word's place (a decoded word whose plain text is several words gives each a share of its box). */
interface Slot {
  text: string;
  box: Box;
  confidence: number;
  line: DecodedLine;
}

interface EditedWord {
  text: string;
  /** Its line in the edited text. */
  row: number;
  slot: Slot | null;
}

/** Where an added line goes: under (`after`) or over a decoded line, or at the top of a page without any. */
type Anchor = { line: DecodedLine; after: boolean } | { page: number };

/**
 * Boxes along a line's direction (`turns` quarter turns on the page): `box` cut into one part per text, each
 * as long as its characters and a space after it.
 */
export function spreadBoxes(box: Box, texts: readonly string[], turns: number): Box[] {
  const own = turnBox(box, turns);
  const weights = texts.map((t) => [...t].length + 1);
  const total = weights.reduce((a, b) => a + b, 0) - 1;
  let at = 0;
  return texts.map((_, k) => {
    const x0 = own.x0 + ((own.x1 - own.x0) * at) / total;
    at += weights[k]!;
    const x1 = own.x0 + ((own.x1 - own.x0) * Math.min(total, at - 1)) / total;
    return turnBox({ x0, y0: own.y0, x1, y1: own.y1 }, (4 - turns) % 4);
  });
}

function decodedLines(pages: readonly DecodedPage[]): DecodedLine[] {
  const lines: DecodedLine[] = [];
  for (const page of pages) {
    page.regions.forEach((region, r) => region.lines.forEach((line, index) => {
      const turns = quarterTurns(line.angle ?? page.textAngle);
      const decoded: DecodedLine = { page: page.page, region: r, index, line, turns, slots: [] };
      line.words.forEach((word, k) => {
        const parts = plainWords(word.text, k === 0);
        const boxes = parts.length > 1 ? spreadBoxes(word.box, parts, turns) : [word.box];
        parts.forEach((text, p) => decoded.slots.push({ text, box: boxes[p]!, confidence: word.confidence, line: decoded }));
      });
      lines.push(decoded);
    }));
  }
  return lines;
}

/** The edited text cut at the page breaks it still holds: each piece with the first page it starts. */
function editedChunks(text: string, pageCount: number): Array<{ page: number; rows: Array<{ row: number; text: string }> }> {
  const chunks = [{ page: 0, rows: [] as Array<{ row: number; text: string }> }];
  text.split('\n').forEach((line, row) => {
    const mark = PAGE_MARK.exec(line);
    const page = mark ? Number(mark[1]) - 1 : -1;
    // A page break counts where it moves forward to a page the document has; anything else is only text.
    if (page > chunks.at(-1)!.page && page < pageCount) chunks.push({ page, rows: [] });
    else chunks.at(-1)!.rows.push({ row, text: line });
  });
  return chunks;
}

/** The words a decoded line ends with: the edited words given to it, at their boxes. */
function lineWords(line: DecodedLine, words: readonly EditedWord[]): WordBox[] {
  const kept = words.length === line.slots.length && words.every((w, k) => w.slot === line.slots[k]);
  const replaced = kept || (words.length === line.slots.length && words.every((w) => w.slot?.line === line));
  if (replaced) return words.map((w) => ({ text: w.text, box: w.slot!.box, confidence: w.slot!.confidence }));
  const boxes = spreadBoxes(line.line.box, words.map((w) => w.text), line.turns);
  return words.map((w, k) => ({ text: w.text, box: boxes[k]!, confidence: w.slot?.confidence ?? 1 }));
}

/** An added line's box: `k` lines (from 1) under or over its anchor line, in that line's frame, inside the page. */
function addedLineBox(anchor: Anchor, k: number, texts: readonly string[], pages: ReadonlyMap<number, PageInfo>): { box: Box; turns: number; angle?: number } {
  const chars = texts.reduce((n, t) => n + [...t].length + 1, -1);
  if ('page' in anchor) {
    const page = pages.get(anchor.page);
    const [w, h] = [page?.width ?? 1000, page?.height ?? 1400];
    const height = h / 60;
    const y0 = 0.05 * h + (k - 1) * height;
    return { box: { x0: 0.05 * w, y0, x1: 0.05 * w + Math.min(0.9 * w, chars * 0.5 * height), y1: y0 + height }, turns: 0 };
  }
  const { line, turns } = anchor.line;
  const own = turnBox(line.box, turns);
  const height = own.y1 - own.y0;
  const readChars = Math.max(1, line.words.reduce((n, w) => n + [...w.text].length + 1, -1));
  const width = Math.min(own.x1 - own.x0, (chars * (own.x1 - own.x0)) / readChars);
  const y0 = own.y0 + (anchor.after ? k : -k) * height;
  let box = turnBox({ x0: own.x0, y0, x1: own.x0 + width, y1: y0 + height }, (4 - turns) % 4);
  const page = pages.get(anchor.line.page);
  if (page) box = insidePage(box, page);
  return { box, turns, ...(line.angle !== undefined ? { angle: line.angle } : {}) };
}

function insidePage(b: Box, page: PageInfo): Box {
  const dx = b.x1 > page.width ? page.width - b.x1 : b.x0 < 0 ? -b.x0 : 0;
  const dy = b.y1 > page.height ? page.height - b.y1 : b.y0 < 0 ? -b.y0 : 0;
  return { x0: b.x0 + dx, y0: b.y0 + dy, x1: b.x1 + dx, y1: b.y1 + dy };
}

const lineKey = (page: number, region: number, index: number) => `${page}/${region}/${index}`;

/**
 * Every page's words as the user edited them, to lay over the pages (SearchablePdf.addPage): the decoded
 * pages' regions with their lines' words replaced, and the lines the user added among them. `pages`: the
 * document's pages, for their sizes; a page with neither decoded nor added words is absent.
 */
export function editedPages(decoded: readonly DecodedPage[], text: string, pages: readonly PageInfo[]): Map<number, HocrRegion[]> {
  const pageInfo = new Map(pages.map((p) => [p.index, p]));
  const lines = decodedLines([...decoded].sort((a, b) => a.page - b.page));
  const byKey = new Map(lines.map((l) => [lineKey(l.page, l.region, l.index), l]));
  const given = new Map<DecodedLine, EditedWord[]>(lines.map((l) => [l, []]));
  /** Added lines by where they go ('after' or 'before' a line's key, or 'page' and its index), in text order. */
  const added = new Map<string, { anchor: Anchor; rows: string[][] }>();
  const addLine = (anchor: Anchor, words: string[]) => {
    const key = 'page' in anchor ? `page ${anchor.page}` : `${anchor.after ? 'after' : 'before'} ${lineKey(anchor.line.page, anchor.line.region, anchor.line.index)}`;
    const entry = added.get(key) ?? { anchor, rows: [] };
    entry.rows.push(words);
    added.set(key, entry);
  };

  const chunks = editedChunks(text, pages.length);
  let first = 0;
  chunks.forEach((chunk, c) => {
    // Lines are in page order, and so are the pieces of the text.
    const end = chunks[c + 1]?.page ?? Infinity;
    while (first < lines.length && lines[first]!.page < chunk.page) first++;
    let last = first;
    while (last < lines.length && lines[last]!.page < end) last++;
    const chunkLines = lines.slice(first, last);
    const at = new Map(chunkLines.map((l, k) => [l, k]));
    const slots = chunkLines.flatMap((l) => l.slots);
    const words: EditedWord[] = chunk.rows.flatMap(({ row, text: t }) => plainWords(t, true).map((w) => ({ text: w, row, slot: null })));
    const map = alignTokens(words.map((w) => w.text), slots.map((s) => s.text));
    // Between two aligned words, as many edited words as decoded ones replace them one for one.
    let lastE = -1;
    let lastD = -1;
    for (let e = 0; e <= words.length; e++) {
      const d = e < words.length ? map[e]! : slots.length;
      if (e < words.length && d < 0) continue;
      if (e - lastE === d - lastD) for (let k = 1; k < e - lastE; k++) words[lastE + k]!.slot = slots[lastD + k]!;
      if (e < words.length) words[e]!.slot = slots[d]!;
      lastE = e;
      lastD = d;
    }
    const rows = new Map<number, EditedWord[]>();
    for (const w of words) {
      const row = rows.get(w.row);
      if (row) row.push(w);
      else rows.set(w.row, [w]);
    }
    const claimed = new Set(words.map((w) => w.slot?.line).filter((l): l is DecodedLine => l !== undefined));
    let previous: DecodedLine | null = null;
    let freeRows: EditedWord[][] = [];
    // Rows without a placed word, between the placed rows around them (`previous`, `next`): the decoded lines
    // between those that kept none of their words take them in order; the rest are added lines.
    const placeFreeRows = (next: DecodedLine | null) => {
      const open = chunkLines.slice(previous ? at.get(previous)! + 1 : 0, next ? at.get(next)! : chunkLines.length).filter((l) => !claimed.has(l));
      let before: DecodedLine | null = previous;
      freeRows.forEach((row, k) => {
        const line = open[k];
        const texts = row.map((w) => w.text);
        if (line) {
          given.get(line)!.push(...row);
          before = line;
        } else if (before) addLine({ line: before, after: true }, texts);
        else if (next) addLine({ line: next, after: false }, texts);
        else addLine({ page: chunk.page }, texts);
      });
      freeRows = [];
    };
    for (const row of rows.values()) {
      const placed = row.find((w) => w.slot)?.slot?.line;
      if (!placed) {
        freeRows.push(row);
        continue;
      }
      placeFreeRows(placed);
      // A word without a place joins the line of the nearest placed word before it on its row (after it, at
      // the row's start).
      let current = placed;
      for (const w of row) {
        if (w.slot) current = w.slot.line;
        given.get(current)!.push(w);
      }
      previous = current;
    }
    placeFreeRows(null);
  });

  const out = new Map<number, HocrRegion[]>();
  for (const page of decoded) {
    out.set(page.page, page.regions.map((region, r) => ({
      region: region.region,
      lines: region.lines.flatMap((_, index) => {
        const line = byKey.get(lineKey(page.page, r, index))!;
        const words = given.get(line)!;
        const own: LineBox[] = words.length > 0 ? [{ ...line.line, words: lineWords(line, words) }] : [];
        // Lines added over a line stack upwards from it, the first farthest; those added under it stack down.
        const around = (after: boolean): LineBox[] => {
          const rows = added.get(`${after ? 'after' : 'before'} ${lineKey(page.page, r, index)}`)?.rows ?? [];
          return rows.map((texts, k) => laidLine({ line, after }, after ? k + 1 : rows.length - k, texts, pageInfo));
        };
        return [...around(false), ...own, ...around(true)];
      }),
    })));
  }
  for (const { anchor, rows } of added.values()) {
    if (!('page' in anchor)) continue;
    const region = { id: `added-${anchor.page}`, page: anchor.page, kind: 'text' as const, box: { x0: 0, y0: 0, x1: 0, y1: 0 }, order: null };
    const laid = rows.map((texts, k) => laidLine(anchor, k + 1, texts, pageInfo));
    out.set(anchor.page, [...(out.get(anchor.page) ?? []), { region, lines: laid }]);
  }
  return out;
}

function laidLine(anchor: Anchor, k: number, texts: readonly string[], pages: ReadonlyMap<number, PageInfo>): LineBox {
  const { box, turns, angle } = addedLineBox(anchor, k, texts, pages);
  const boxes = spreadBoxes(box, texts, turns);
  return { box, words: texts.map((text, i) => ({ text, box: boxes[i]!, confidence: 1 })), ...(angle !== undefined ? { angle } : {}) };
}
