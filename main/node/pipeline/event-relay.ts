// Engine events arrive per crop (one per text line); the UI follows layout regions. The relay renames each
// crop's events to its layout region, holds back a later line's events until the earlier lines of the same
// region have ended (the engine may run crops concurrently), and renumbers token indices and rounds so that a
// region reads as one stream: one region_start (the first line's grid), one region_end with the joined text.
import type { EngineEvent, FixationFrame, RegionStats } from '../../../common/engine-types';
import type { Box } from '../../../common/protocol';
import { joinLines } from './assemble';

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
}

export function emptyStats(): RegionStats {
  return { tokens: 0, forwards: 0, rounds: 0, encodeMs: 0, prefillMs: 0, decodeMs: 0, attentionMs: 0, visualTokenFraction: 0, retractedTokens: 0 };
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
  into.attentionMs += s.attentionMs;
  into.retractedTokens += s.retractedTokens;
}

export interface FinishedRegion {
  regionId: string;
  lines: string[];
  stats: RegionStats;
}

export class EventRelay {
  private readonly streams = new Map<string, RegionStream>();
  private readonly cropToRegion = new Map<string, { regionId: string; line: number; box: Box; frame?: FixationFrame }>();

  constructor(
    crops: Array<{ input: { id: string }; regionId: string; line: number; box: Box }>,
    private readonly forward: (events: EngineEvent[]) => void,
    private readonly onRegionDone: (region: FinishedRegion) => void,
    private readonly onCropDone: () => void,
  ) {
    for (const c of crops) {
      this.cropToRegion.set(c.input.id, { regionId: c.regionId, line: c.line, box: c.box });
      const s = this.streams.get(c.regionId);
      if (s) s.lines = Math.max(s.lines, c.line + 1);
      else {
        this.streams.set(c.regionId, {
          lines: c.line + 1, current: 0, buffered: new Map(), tokenOffset: 0, roundOffset: 0,
          lineTokens: 0, lineRounds: 0, texts: [], stats: emptyStats(),
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
      if (e.type === 'region_start') target.frame = { box: target.box, rows: e.grid.rows, cols: e.grid.cols };
      if (e.type === 'token' && e.fixation && target.frame) e.fixation.frame = target.frame;
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
        if (s.current === 0) out.push({ ...e, regionId });
        return;
      case 'round':
        s.lineRounds = Math.max(s.lineRounds, e.round + 1);
        out.push({ ...e, regionId, round: e.round + s.roundOffset });
        return;
      case 'token':
        s.lineTokens = Math.max(s.lineTokens, e.index + 1);
        // Lines of one block are joined by a space; the token stream shows it so the editor text matches.
        out.push({ ...e, regionId, index: e.index + s.tokenOffset, round: e.round + s.roundOffset,
          text: e.index === 0 && s.current > 0 ? ` ${e.text}` : e.text });
        return;
      case 'retract':
        s.lineTokens = Math.min(s.lineTokens, e.index);
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
        s.current++;
        if (s.current >= s.lines) {
          const lines = [...s.texts];
          out.push({ type: 'region_end', regionId, text: joinLines(lines), stats: { ...s.stats } });
          this.onRegionDone({ regionId, lines, stats: { ...s.stats } });
          return;
        }
        const next = s.buffered.get(s.current);
        s.buffered.delete(s.current);
        for (const b of next ?? []) this.relay(s, regionId, b, out);
        return;
      }
    }
  }
}
