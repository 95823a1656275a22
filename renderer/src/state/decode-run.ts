// Everything one decode of a document has produced so far, built from the session's event stream. Plain
// mutable records rather than immutable React state: tokens arrive hundreds per second, and the views read
// them on their own schedule (per animation frame) through the `revision` the store bumps per batch.
import type { RegionStats, RoundEvent, TokenEvent } from '../../../common/engine-types';
import type { Box, LayoutRegion, ProgressEvent, SessionEvent } from '../../../common/protocol';
import type { SavedRun } from './saved-runs';

export interface RegionRecord {
  id: string;
  page: number;
  kind: LayoutRegion['kind'];
  box: Box;
  order: number | null;
  grid: { rows: number; cols: number } | null;
  imageTokens: number;
  tokens: TokenEvent[];
  rounds: RoundEvent[];
  stats: RegionStats | null;
  status: 'pending' | 'decoding' | 'done';
  /** Some token came with a heatmap: the region was decoded with fixation. */
  fixated: boolean;
  /** Text that closes the region after its last token (a table's closing tags). */
  tail: string;
  /** Lines of the region whose readings were too unsure to keep: not in the text, marked on the page. */
  unsure: UnsureLine[];
}

export interface UnsureLine {
  box: Box;
  text: string;
  meanProb: number;
}

/** A round in document order, with the running totals the timeline plots. */
export interface TimelineRound {
  regionId: string;
  event: RoundEvent;
  tokensSoFar: number;
  forwardsSoFar: number;
}

/**
 * What the editor must do to mirror the run, in order: open a region, append a token, take back a region's
 * tokens from an index on (the engine's repetition guard), close, or drop a partial one.
 */
export type EditorOp =
  | { op: 'open'; regionId: string }
  | { op: 'token'; regionId: string; index: number }
  | { op: 'retract'; regionId: string; index: number }
  | { op: 'close'; regionId: string }
  | { op: 'reset'; regionId: string };

export interface TokenRef {
  regionId: string;
  index: number;
}

export class DecodeRun {
  readonly regions = new Map<string, RegionRecord>();
  readonly pages = new Map<number, string[]>();
  /** Per page, the text lines the detector found (the crops the reader read), in page pixels. */
  readonly lines = new Map<number, Box[]>();
  readonly timeline: TimelineRound[] = [];
  readonly editorOps: EditorOp[] = [];
  /** Every event applied, in order: what is kept to rebuild the run when its document is opened again. */
  readonly log: SessionEvent[] = [];
  progress: ProgressEvent | null = null;
  /** The progress when the first region had finished: where the rate of the time left is measured from. */
  private firstDone: ProgressEvent | null = null;
  /** The region being decoded and its newest token: what the live heatmap follows. */
  live: TokenRef | null = null;
  /** Tokens in the text now: a retract (a loop cut, a line's reading replaced or dropped) takes them back. */
  tokens = 0;
  /**
   * Every token the engine committed, taken back later or not: what the forwards and the decode time paid
   * for, so the rates below do not fall when the page pipeline replaces or drops a line's reading.
   */
  committed = 0;
  forwards = 0;
  decodeMs = 0;
  /** Over finished regions: the engine's estimate of what AR would have taken, and what the decode took. */
  private arEstimateMs = 0;
  private regionDecodeMs = 0;
  /** Over finished regions decoded with fixation: the engine's visual token fraction times their tokens. */
  private attendedShareSum = 0;
  private attendedCount = 0;

  constructor(public docId: string) {}

  apply(events: SessionEvent[]): void {
    for (const e of events) {
      this.log.push(e);
      this.applyOne(e);
    }
  }

  /**
   * A kept run rebuilt under its document's new id. Its events may name an older id too (a run resumed after
   * an engine restart): all are its own.
   */
  static replay(saved: SavedRun, docId: string): DecodeRun {
    const run = new DecodeRun(docId);
    run.apply(saved.events.map((e) => ('docId' in e ? { ...e, docId } : e)));
    run.live = null;
    return run;
  }

  /**
   * Mean share of the image tokens the non-focal layers attended, over the tokens of finished regions; null
   * without fixation. (A token's heatmap lists at most 32 tokens, whatever was attended: it cannot say.)
   */
  get visualShare(): number | null {
    return this.attendedCount ? this.attendedShareSum / this.attendedCount : null;
  }

  /**
   * The decode's speed against plain AR on this machine: the engine's estimate of AR's time for the same
   * tokens (its own timing of forwards by width) over the time the decode took, over finished regions.
   */
  get speedVsAr(): number | null {
    return this.arEstimateMs > 0 && this.regionDecodeMs > 0 ? this.arEstimateMs / this.regionDecodeMs : null;
  }

  /**
   * The time left, at the rate regions have finished since the first one did; null until two progress reports
   * apart say it. The engine's own estimate spreads everything since the start (the page's analysis, the first
   * lines read together in one batch) over the regions done, which early on is many times too long: it said
   * "about 52 s left" of a decode that took 11 s.
   */
  get remainingMs(): number | null {
    const now = this.progress;
    const first = this.firstDone;
    if (!now || !first || now.regionsDone <= first.regionsDone) return null;
    return ((now.elapsedMs - first.elapsedMs) / (now.regionsDone - first.regionsDone)) * Math.max(0, now.regionsTotal - now.regionsDone);
  }

  get tokensPerForward(): number | null {
    return this.forwards ? this.committed / this.forwards : null;
  }

  get tokensPerSecond(): number | null {
    return this.decodeMs > 0 ? this.committed / (this.decodeMs / 1000) : null;
  }

  /** Regions of a page in reading order (unread regions such as figures last). */
  pageRegions(page: number): RegionRecord[] {
    return (this.pages.get(page) ?? []).map((id) => this.regions.get(id)!)
      .sort((a, b) => (a.order ?? Infinity) - (b.order ?? Infinity));
  }

  token(ref: TokenRef): TokenEvent | undefined {
    return this.regions.get(ref.regionId)?.tokens[ref.index];
  }

  /** Where tokens were read on their page: the line crops they came from, else their region; null if none is known. */
  tokensBox(refs: readonly TokenRef[]): { page: number; box: Box } | null {
    let found: { page: number; box: Box } | null = null;
    for (const ref of refs) {
      const region = this.regions.get(ref.regionId);
      if (!region) continue;
      const box = region.tokens[ref.index]?.fixation?.frame?.box ?? region.box;
      if (!found) found = { page: region.page, box: { ...box } };
      else if (found.page === region.page) {
        found.box = { x0: Math.min(found.box.x0, box.x0), y0: Math.min(found.box.y0, box.y0), x1: Math.max(found.box.x1, box.x1), y1: Math.max(found.box.y1, box.y1) };
      }
    }
    return found;
  }

  /**
   * Forgets what the given pages produced, before a restart decodes them again under a new document id: the
   * editor drops their text, and every other page (and the user's edits there) stays as it is.
   */
  restartPages(pages: number[], docId: string): void {
    this.docId = docId;
    for (const page of pages) {
      for (const id of this.pages.get(page) ?? []) {
        const region = this.regions.get(id)!;
        if (region.tokens.length > 0 || region.status !== 'pending') this.editorOps.push({ op: 'reset', regionId: id });
        this.tokens -= region.tokens.length;
        this.regions.delete(id);
      }
      this.pages.delete(page);
    }
    this.live = null;
    this.progress = null;
    this.firstDone = null;
  }

  /** Pages whose readable regions have not all finished: what a restart after a crash must decode again. */
  unfinishedPages(pageCount: number): number[] {
    const pages: number[] = [];
    for (let p = 0; p < pageCount; p++) {
      const ids = this.pages.get(p);
      if (!ids || ids.some((id) => { const r = this.regions.get(id)!; return r.order !== null && r.status !== 'done'; })) pages.push(p);
    }
    return pages;
  }

  private applyOne(e: SessionEvent): void {
    switch (e.type) {
      case 'page_layout': {
        if (e.docId !== this.docId) return;
        for (const r of e.regions) {
          this.regions.set(r.id, {
            id: r.id, page: r.page, kind: r.kind, box: r.box, order: r.order, grid: null, imageTokens: 0,
            tokens: [], rounds: [], stats: null, status: 'pending', fixated: false, tail: '', unsure: [],
          });
        }
        this.pages.set(e.page, e.regions.map((r) => r.id));
        this.lines.set(e.page, e.lines.map((l) => l.box));
        return;
      }
      case 'progress':
        if (e.docId !== this.docId) return;
        this.progress = e;
        if (!this.firstDone && e.regionsDone > 0) this.firstDone = e;
        return;
      case 'unsure_line': {
        const region = e.docId === this.docId ? this.regions.get(e.regionId) : undefined;
        region?.unsure.push({ box: e.box, text: e.text, meanProb: e.meanProb });
        return;
      }
      case 'engine_crashed':
        return;
      default:
        break;
    }
    const region = this.regions.get(e.regionId);
    if (!region || region.status === 'done') return;
    switch (e.type) {
      case 'region_start':
        if (region.tokens.length > 0) {
          this.editorOps.push({ op: 'reset', regionId: region.id });
          region.tokens = [];
          region.rounds = [];
          region.fixated = false;
        }
        region.grid = e.grid;
        region.imageTokens = e.imageTokens;
        region.status = 'decoding';
        this.editorOps.push({ op: 'open', regionId: region.id });
        return;
      case 'round':
        region.rounds.push(e);
        this.forwards += e.forwards;
        this.decodeMs += e.draftMs + e.verifyMs;
        this.timeline.push({ regionId: region.id, event: e, tokensSoFar: this.committed + e.committed.length, forwardsSoFar: this.forwards });
        return;
      case 'token':
        if (e.index !== region.tokens.length) return;
        region.tokens.push(e);
        this.tokens++;
        this.committed++;
        // The page pipeline gives every token its crop, an empty heatmap where fixation recorded none (it was
        // off, or warming up): only a heatmap with cells says fixation ran.
        if (e.fixation && e.fixation.indices.length > 0) region.fixated = true;
        this.live = { regionId: region.id, index: e.index };
        this.editorOps.push({ op: 'token', regionId: region.id, index: e.index });
        return;
      case 'retract':
        if (e.index >= region.tokens.length) return;
        this.tokens -= region.tokens.length - e.index;
        region.tokens.length = e.index;
        if (this.live?.regionId === region.id) this.live = e.index > 0 ? { regionId: region.id, index: e.index - 1 } : null;
        this.editorOps.push({ op: 'retract', regionId: region.id, index: e.index });
        return;
      case 'region_end':
        region.stats = e.stats;
        region.tail = e.tail ?? '';
        if (region.fixated) {
          this.attendedShareSum += e.stats.visualTokenFraction * e.stats.tokens;
          this.attendedCount += e.stats.tokens;
        }
        region.status = 'done';
        if (e.stats.arEstimateMs > 0) {
          this.arEstimateMs += e.stats.arEstimateMs;
          this.regionDecodeMs += e.stats.decodeMs;
        }
        if (region.rounds.length === 0) {
          // Plain AR decoding reports no rounds: its forwards and time come with the region's stats.
          this.forwards += e.stats.forwards;
          this.decodeMs += e.stats.decodeMs;
        }
        this.editorOps.push({ op: 'close', regionId: region.id });
        return;
    }
  }
}
