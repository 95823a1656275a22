// Engine events arrive per crop (one per text line); the UI follows layout regions. The relay renames each
// crop's events to its layout region, holds back a later line's events until the earlier lines of the same
// region have ended (the engine may run crops concurrently), and renumbers token indices and rounds so that a
// region reads as one stream: one region_start (the first line's grid), one region_end with the joined text.
// A line taken back whole (a retract at its index 0: another view's reading replaces it) gives its lead back
// to the reading that follows.
// A table read by cells streams as HTML: each cell's first token carries the markup before it, and the
// region_end carries the closing tags as its `tail`.
import type { EngineEvent, FixationFrame, RegionKind, RegionStats } from '../../../../common/engine-types';
import type { Box } from '../../../../common/protocol';
import { escapeProse, joinLines } from '../write/markdown';
import { escapeHtml, renderTable, type TableMarkup } from '../write/table-markup';

interface RegionStream {
  lines: number;
  /** Line whose events are forwarded live; later lines are buffered. */
  current: number;
  buffered: Map<number, EngineEvent[]>;
  tokenOffset: number;
  roundOffset: number;
  lineTokens: number;
  lineRounds: number;
  texts: string[];
  stats: RegionStats;
  table: TableMarkup | null;
  /** Text the next token of the region starts with: the space between lines, or a table's markup. */
  lead: string;
  /** A table's current cell has text already: a later line of it is set off by a space. */
  cellHasText: boolean;
  /** The region_start went out (a line read in a second view starts again). */
  started: boolean;
  /** Text read as prose, whose `<` the Markdown escapes (not a table, not a formula). */
  prose: boolean;
  /** lead and cellHasText as they were before the current line's first token. */
  lineStart: { lead: string; cellHasText: boolean } | null;
}

export function emptyStats(): RegionStats {
  return { tokens: 0, forwards: 0, rounds: 0, encodeMs: 0, prefillMs: 0, decodeMs: 0, decodeShareMs: 0, attentionMs: 0, visualTokenFraction: 0, retractedTokens: 0,
    committed: 0, arEstimateMs: 0 };
}

function addStats(into: RegionStats, s: RegionStats): void {
  // The fixation share is a mean over tokens, so it is weighted by each line's tokens.
  const tokens = into.tokens + s.tokens;
  into.visualTokenFraction = tokens > 0 ? (into.visualTokenFraction * into.tokens + s.visualTokenFraction * s.tokens) / tokens : s.visualTokenFraction;
  into.tokens = tokens;
  into.forwards += s.forwards;
  into.rounds += s.rounds;
  into.encodeMs += s.encodeMs;
  into.prefillMs += s.prefillMs;
  into.decodeMs += s.decodeMs;
  into.decodeShareMs += s.decodeShareMs;
  into.attentionMs += s.attentionMs;
  into.retractedTokens += s.retractedTokens;
  into.committed += s.committed;
  into.arEstimateMs += s.arEstimateMs;
}

export interface FinishedRegion {
  regionId: string;
  lines: string[];
  /** The region's text as its region_end reports it: lines joined, or a table's HTML. */
  text: string;
  stats: RegionStats;
}

export class EventRelay {
  private readonly streams = new Map<string, RegionStream>();
  private readonly cropToRegion = new Map<string, { regionId: string; line: number; box: Box; angle: number; frame?: FixationFrame }>();

  constructor(
    crops: ReadonlyArray<{ id: string; kind: RegionKind; regionId: string; line: number; box: Box; angle: number }>,
    tables: ReadonlyMap<string, TableMarkup>,
    private readonly forward: (events: EngineEvent[]) => void,
    private readonly onRegionDone: (region: FinishedRegion) => void,
    private readonly onCropDone: () => void,
  ) {
    for (const c of crops) {
      this.cropToRegion.set(c.id, { regionId: c.regionId, line: c.line, box: c.box, angle: c.angle });
      const s = this.streams.get(c.regionId);
      if (s) s.lines = Math.max(s.lines, c.line + 1);
      else {
        const table = tables.get(c.regionId) ?? null;
        this.streams.set(c.regionId, {
          lines: c.line + 1, current: 0, buffered: new Map(), tokenOffset: 0, roundOffset: 0,
          lineTokens: 0, lineRounds: 0, texts: [], stats: emptyStats(), table, lead: table?.leads[0] ?? '', cellHasText: false,
          started: false, lineStart: null, prose: c.kind === 'text' && !table,
        });
      }
    }
  }

  push(events: EngineEvent[]): void {
    const out: EngineEvent[] = [];
    for (const e of events) {
      const target = this.cropToRegion.get(e.regionId);
      if (!target) continue;
      const s = this.streams.get(target.regionId)!;
      if (e.type === 'region_start') target.frame = { box: target.box, rows: e.grid.rows, cols: e.grid.cols, angle: target.angle };
      // Every token carries its crop's frame, one with no fixation (the warm-up steps) an empty one: word boxes
      // then know each token's line even where the model's gaze is not reported.
      if (e.type === 'token' && target.frame) e.fixation = { ...(e.fixation ?? { indices: [], weights: [] }), frame: target.frame };
      if (target.line === s.current) this.relay(s, target.regionId, e, out);
      else {
        const q = s.buffered.get(target.line) ?? [];
        q.push(e);
        s.buffered.set(target.line, q);
      }
    }
    if (out.length) this.forward(out);
  }

  private relay(s: RegionStream, regionId: string, e: EngineEvent, out: EngineEvent[]): void {
    switch (e.type) {
      case 'region_start':
        if (!s.started) out.push({ ...e, regionId });
        s.started = true;
        return;
      case 'round':
        s.lineRounds = Math.max(s.lineRounds, e.round + 1);
        out.push({ ...e, regionId, round: e.round + s.roundOffset });
        return;
      case 'token': {
        s.lineTokens = Math.max(s.lineTokens, e.index + 1);
        const text = s.table ? escapeHtml(e.text) : s.prose ? escapeProse(e.text) : e.text;
        if (e.index === 0) s.lineStart = { lead: s.lead, cellHasText: s.cellHasText };
        if (e.index === 0 && s.table) {
          if (s.table.leads[s.current] === null && s.cellHasText) s.lead += ' ';
          s.cellHasText = true;
        }
        out.push({ ...e, regionId, index: e.index + s.tokenOffset, round: e.round + s.roundOffset,
          text: e.index === 0 ? s.lead + text : text });
        if (e.index === 0) s.lead = '';
        return;
      }
      case 'retract':
        s.lineTokens = Math.min(s.lineTokens, e.index);
        if (e.index === 0 && s.lineStart) ({ lead: s.lead, cellHasText: s.cellHasText } = s.lineStart);
        out.push({ ...e, regionId, index: e.index + s.tokenOffset });
        return;
      case 'region_end': {
        s.texts.push(e.text);
        addStats(s.stats, e.stats);
        this.onCropDone();
        s.tokenOffset += Math.max(s.lineTokens, e.stats.tokens);
        s.roundOffset += Math.max(s.lineRounds, e.stats.rounds);
        s.lineTokens = 0;
        s.lineRounds = 0;
        s.lineStart = null;
        s.current++;
        if (s.current >= s.lines) {
          const lines = [...s.texts];
          const text = s.table ? renderTable(s.table, lines) : s.prose ? escapeProse(joinLines(lines)) : joinLines(lines);
          const tail = s.table ? s.lead + s.table.tail : '';
          out.push({ type: 'region_end', regionId, text, stats: { ...s.stats }, ...(tail ? { tail } : {}) });
          this.onRegionDone({ regionId, lines, text, stats: { ...s.stats } });
          return;
        }
        // A cell that read as nothing passes its markup on (a cell's later line adds a space at its first
        // token, if the cell has text by then); lines of a block are joined by one space, which the token
        // stream shows so that the editor's text matches.
        if (s.table) {
          const lead = s.table.leads[s.current];
          if (lead !== null && lead !== undefined) {
            s.lead += lead;
            s.cellHasText = false;
          }
        } else s.lead = s.tokenOffset > 0 ? ' ' : '';
        const next = s.buffered.get(s.current);
        s.buffered.delete(s.current);
        for (const b of next ?? []) this.relay(s, regionId, b, out);
        return;
      }
    }
  }
}
