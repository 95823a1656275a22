// Mirrors a decode run into the Monaco model: region text streams in at the end of its region, each token
// carries a decoration tinted by how it was committed (and marked when it is one to check, token-style.ts),
// and decorations move with the user's edits, so a token stays linked to its fixation wherever the text
// around it changes. One edit per region per frame.
import type { monaco } from './monaco';
import type { DecodeRun, TokenRef } from '../state/decode-run';
import { regionPrefix, regionSuffix } from '../state/markdown-layout';
import { tokenClass, tokenHover } from './token-style';

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
        const first = this.model.getValueLength() === 0;
        this.openRegion(op.regionId, regionPrefix(region?.kind ?? 'text', first));
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
    const { start, end } = this.insert({ lineNumber: range.endLineNumber, column: range.endColumn }, text);
    const e = this.model.getPositionAt(end);
    this.setRegionRange(regionId, { ...range, endLineNumber: e.lineNumber, endColumn: e.column });
    return { start, end };
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
    this.tokenDecorations.delete(regionId);
  }
}
