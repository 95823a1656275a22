// Mirrors a decode run into the Monaco model: region text streams in at the end of its region, each token
// carries a decoration tinted by how it was committed (and marked when it is one to check, token-style.ts),
// and decorations move with the user's edits, so a token stays linked to its fixation wherever the text
// around it changes. One edit per region per frame. A page's first region is preceded by the page break
// every Markdown export uses.
import { CHECK_BELOW, tokenConfidence } from '../../../common/confidence';
import { pageBreak } from '../../../common/markdown-pages';
import type { monaco } from './monaco';
import type { DecodeRun, TokenRef } from '../state/decode-run';
import { regionPrefix, regionSuffix } from '../state/markdown-layout';
import { tokenClass, tokenHover } from './token-style';

/** A word the model was unsure of, as it stands in the editor's text now. */
export interface WordToCheck {
  range: Range;
  start: number;
}

type Model = monaco.editor.ITextModel;
type Range = monaco.IRange;

const NEVER_GROWS = 1; // monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges

function hover(t: Parameters<typeof tokenHover>[0]): { hoverMessage?: { value: string } } {
  const value = tokenHover(t);
  return value === null ? {} : { hoverMessage: { value } };
}

export class StreamMirror {
  private run: DecodeRun | null = null;
  private cursor = 0;
  private readonly regionDecoration = new Map<string, string>();
  private readonly tokenDecorations = new Map<string, string[]>();
  private readonly tokenByDecoration = new Map<string, TokenRef>();
  private readonly regionByDecoration = new Map<string, string>();
  private readonly pagesBroken = new Set<number>();
  /** Regions in the order they opened: the reading order, in which their texts stand. */
  private readonly opened: string[] = [];

  constructor(private readonly model: Model) {}

  get currentRun(): DecodeRun | null {
    return this.run;
  }

  /** Starts over from a run (or none) with the given text, dropping every token link. */
  reset(run: DecodeRun | null, text: string): void {
    this.model.deltaDecorations([...this.regionDecoration.values(), ...[...this.tokenDecorations.values()].flat()], []);
    this.regionDecoration.clear();
    this.tokenDecorations.clear();
    this.tokenByDecoration.clear();
    this.regionByDecoration.clear();
    this.pagesBroken.clear();
    this.opened.length = 0;
    this.model.setValue(text);
    this.run = run;
    this.cursor = 0;
  }

  /** Applies the run's editor operations that arrived since the last call. */
  sync(): void {
    const run = this.run;
    if (!run) return;
    const ops = run.editorOps;
    let pendingRegion: string | null = null;
    let pending: number[] = [];
    const flushTokens = () => {
      if (pendingRegion !== null && pending.length > 0) this.appendTokens(run, pendingRegion, pending);
      pendingRegion = null;
      pending = [];
    };
    for (; this.cursor < ops.length; this.cursor++) {
      const op = ops[this.cursor]!;
      if (op.op === 'token') {
        if (pendingRegion !== op.regionId) flushTokens();
        pendingRegion = op.regionId;
        pending.push(op.index);
        continue;
      }
      flushTokens();
      const region = run.regions.get(op.regionId);
      if (op.op === 'open') {
        const page = region?.page ?? 0;
        // The page pipeline opens a page's regions together, before any has text: what comes first is the
        // first region opened, not the first to find the text empty.
        const first = this.opened.length === 0 && this.model.getValueLength() === 0;
        if (page > 0 && !this.pagesBroken.has(page)) {
          this.pagesBroken.add(page);
          this.insert(this.end(), (first ? '' : '\n\n') + pageBreak(page));
        }
        this.openRegion(op.regionId, regionPrefix(region?.kind ?? 'text', first && page === 0));
      } else if (op.op === 'retract') {
        this.retractTokens(op.regionId, op.index);
      } else if (op.op === 'close') {
        // A region that read as nothing (every line dropped as unsure) leaves no empty block behind.
        if (region && region.tokens.length === 0 && !region.tail) this.dropRegion(op.regionId);
        else this.appendToRegion(op.regionId, (region?.tail ?? '') + regionSuffix(region?.kind ?? 'text'));
      } else {
        this.dropRegion(op.regionId);
      }
    }
    flushTokens();
  }

  tokensIn(range: Range): TokenRef[] {
    return this.model.getDecorationsInRange(range)
      .map((d) => this.tokenByDecoration.get(d.id))
      .filter((t): t is TokenRef => t !== undefined)
      .sort((a, b) => (a.regionId === b.regionId ? a.index - b.index : 0));
  }

  regionAt(range: Range): string | null {
    for (const d of this.model.getDecorationsInRange(range)) {
      const id = this.regionByDecoration.get(d.id);
      if (id) return id;
    }
    return null;
  }

  regionRange(regionId: string): Range | null {
    const id = this.regionDecoration.get(regionId);
    return id ? this.model.getDecorationRange(id) : null;
  }

  /** Where tokens stand in the text now (those the user deleted have none). */
  tokenRanges(refs: readonly TokenRef[]): Range[] {
    const wanted = new Set(refs.map((r) => `${r.regionId}/${r.index}`));
    const ranges: Range[] = [];
    for (const [id, ref] of this.tokenByDecoration) {
      if (!wanted.has(`${ref.regionId}/${ref.index}`)) continue;
      const range = this.model.getDecorationRange(id);
      if (range && !isEmpty(range)) ranges.push(range);
    }
    return ranges;
  }

  /**
   * The words holding a token whose confidence is under CHECK_BELOW, in the order of the text (the
   * reading order, page after page), each the whole word around its tokens. A token the user typed over is
   * gone from them.
   */
  wordsToCheck(): WordToCheck[] {
    const run = this.run;
    if (!run) return [];
    const words: WordToCheck[] = [];
    const text = this.model.getValue();
    for (const [id, ref] of this.tokenByDecoration) {
      const token = run.token(ref);
      if (!token || tokenConfidence(token) >= CHECK_BELOW) continue;
      const range = this.model.getDecorationRange(id);
      if (!range || isEmpty(range)) continue;
      const word = this.wordAround(range, text);
      if (word) words.push(word);
    }
    words.sort((a, b) => a.start - b.start);
    return words.filter((w, i) => i === 0 || w.start !== words[i - 1]!.start);
  }

  /** The whitespace-delimited word around a range; null when the range holds only whitespace. */
  private wordAround(range: Range, text: string): WordToCheck | null {
    let start = this.model.getOffsetAt({ lineNumber: range.startLineNumber, column: range.startColumn });
    let end = this.model.getOffsetAt({ lineNumber: range.endLineNumber, column: range.endColumn });
    while (start < end && /\s/.test(text[start]!)) start++;
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    if (start === end) return null;
    while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
    while (end < text.length && !/\s/.test(text[end]!)) end++;
    const s = this.model.getPositionAt(start);
    const e = this.model.getPositionAt(end);
    return { range: { startLineNumber: s.lineNumber, startColumn: s.column, endLineNumber: e.lineNumber, endColumn: e.column }, start };
  }

  private end(): monaco.IPosition {
    const line = this.model.getLineCount();
    return { lineNumber: line, column: this.model.getLineMaxColumn(line) };
  }

  private setRegionRange(regionId: string, range: Range): void {
    const old = this.regionDecoration.get(regionId);
    const [id] = this.model.deltaDecorations(old ? [old] : [], [{ range, options: { stickiness: NEVER_GROWS, className: `region-text` } }]);
    if (old) this.regionByDecoration.delete(old);
    this.regionDecoration.set(regionId, id!);
    this.regionByDecoration.set(id!, regionId);
  }

  private insert(at: monaco.IPosition, text: string): { start: number; end: number } {
    const start = this.model.getOffsetAt(at);
    if (text) this.model.applyEdits([{ range: { startLineNumber: at.lineNumber, startColumn: at.column, endLineNumber: at.lineNumber, endColumn: at.column }, text }]);
    return { start, end: start + text.length };
  }

  private openRegion(regionId: string, prefix: string): void {
    this.dropRegion(regionId);
    this.opened.push(regionId);
    const at = this.end();
    const { start, end } = this.insert(at, prefix);
    const s = this.model.getPositionAt(start);
    const e = this.model.getPositionAt(end);
    this.setRegionRange(regionId, { startLineNumber: s.lineNumber, startColumn: s.column, endLineNumber: e.lineNumber, endColumn: e.column });
  }

  /** Inserts at the region's end and grows its range; returns the offsets of the inserted text. */
  private appendToRegion(regionId: string, text: string): { start: number; end: number } | null {
    const range = this.regionRange(regionId);
    if (!range) return null;
    const from = isEmpty(range) ? this.emptyRegionPlace(regionId, range) : this.model.getOffsetAt({ lineNumber: range.startLineNumber, column: range.startColumn });
    const at = isEmpty(range) ? from : this.model.getOffsetAt({ lineNumber: range.endLineNumber, column: range.endColumn });
    const { start, end } = this.insert(this.model.getPositionAt(at), text);
    const s = this.model.getPositionAt(from);
    const e = this.model.getPositionAt(end);
    this.setRegionRange(regionId, { startLineNumber: s.lineNumber, startColumn: s.column, endLineNumber: e.lineNumber, endColumn: e.column });
    return { start, end };
  }

  /**
   * Where a region with no text yet (the first, which has no separator before it) writes: an empty range has
   * no edge text can be typed at, so text inserted where it stands (the next region's separator) may have
   * carried it past. It belongs before the next region in reading order.
   */
  private emptyRegionPlace(regionId: string, range: Range): number {
    const own = this.model.getOffsetAt({ lineNumber: range.startLineNumber, column: range.startColumn });
    for (const next of this.opened.slice(this.opened.indexOf(regionId) + 1)) {
      const after = this.regionRange(next);
      if (after) return Math.min(own, this.model.getOffsetAt({ lineNumber: after.startLineNumber, column: after.startColumn }));
    }
    return own;
  }

  private appendTokens(run: DecodeRun, regionId: string, indices: number[]): void {
    const region = run.regions.get(regionId);
    if (!region) return;
    const tokens = indices.map((i) => region.tokens[i]!).filter(Boolean);
    const placed = this.appendToRegion(regionId, tokens.map((t) => t.text).join(''));
    if (!placed) return;
    let offset = placed.start;
    const decorations: monaco.editor.IModelDeltaDecoration[] = [];
    const refs: TokenRef[] = [];
    for (const t of tokens) {
      if (t.text.length > 0) {
        const s = this.model.getPositionAt(offset);
        const e = this.model.getPositionAt(offset + t.text.length);
        decorations.push({
          range: { startLineNumber: s.lineNumber, startColumn: s.column, endLineNumber: e.lineNumber, endColumn: e.column },
          options: { stickiness: NEVER_GROWS, inlineClassName: tokenClass(t), ...hover(t) },
        });
        refs.push({ regionId, index: t.index });
      }
      offset += t.text.length;
    }
    const ids = this.model.deltaDecorations([], decorations);
    ids.forEach((id, k) => this.tokenByDecoration.set(id, refs[k]!));
    this.tokenDecorations.set(regionId, [...(this.tokenDecorations.get(regionId) ?? []), ...ids]);
  }

  /** Deletes the region's text from its token `index` on (still streaming, so that is the region's end). */
  private retractTokens(regionId: string, index: number): void {
    const range = this.regionRange(regionId);
    const ids = this.tokenDecorations.get(regionId) ?? [];
    const first = ids.findIndex((id) => (this.tokenByDecoration.get(id)?.index ?? -1) >= index);
    if (!range || first < 0) return;
    const from = this.model.getDecorationRange(ids[first]!);
    if (from) {
      this.model.applyEdits([{ range: { startLineNumber: from.startLineNumber, startColumn: from.startColumn,
        endLineNumber: range.endLineNumber, endColumn: range.endColumn }, text: '' }]);
    }
    const gone = ids.slice(first);
    for (const id of gone) this.tokenByDecoration.delete(id);
    this.model.deltaDecorations(gone, []);
    this.tokenDecorations.set(regionId, ids.slice(0, first));
  }

  private dropRegion(regionId: string): void {
    const range = this.regionRange(regionId);
    if (range) this.model.applyEdits([{ range, text: '' }]);
    const ids = this.tokenDecorations.get(regionId) ?? [];
    for (const id of ids) this.tokenByDecoration.delete(id);
    const regionDeco = this.regionDecoration.get(regionId);
    this.model.deltaDecorations(regionDeco ? [...ids, regionDeco] : ids, []);
    if (regionDeco) this.regionByDecoration.delete(regionDeco);
    this.regionDecoration.delete(regionId);
    const place = this.opened.indexOf(regionId);
    if (place >= 0) this.opened.splice(place, 1);
    this.tokenDecorations.delete(regionId);
  }
}

function isEmpty(range: Range): boolean {
  return range.startLineNumber === range.endLineNumber && range.startColumn === range.endColumn;
}
