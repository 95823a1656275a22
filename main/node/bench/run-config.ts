// Decodes the whole benchmark set with one set of options and keeps what the report needs.
import type { DecodeOptions, EngineEvent, RegionKind, RegionStats, TokenEvent } from '../../../common/engine-types';
import type { NativeModel } from '../engine/native-addon';
import type { BenchRegion } from './bench-regions';
import { fixationHits, type HitCount } from './fixation-hit';
import { regionScore } from './region-score';

export interface RegionOutcome {
  id: string;
  kind: RegionKind;
  source: string;
  text: string;
  stats: RegionStats;
  score: number;
  /** Guesses accepted in each round that verified some. */
  acceptedPerRound: number[];
  /** Block size of every round (0: a plain AR step chosen by the automatic block size). */
  blockSizes: number[];
}

export interface ConfigOutcome {
  name: string;
  regions: RegionOutcome[];
  hits: HitCount;
}

export async function runConfig(model: NativeModel, regions: BenchRegion[], name: string, options: DecodeOptions): Promise<ConfigOutcome> {
  const tokens = new Map<string, TokenEvent[]>();
  const rounds = new Map<string, number[]>();
  const blocks = new Map<string, number[]>();
  const grids = new Map<string, { rows: number; cols: number }>();
  const onEvents = (events: EngineEvent[]) => {
    for (const e of events) {
      if (e.type === 'token') push(tokens, e.regionId, e);
      else if (e.type === 'retract') tokens.get(e.regionId)?.splice(e.index);
      else if (e.type === 'round') {
        if (e.draft.length > e.blockSize) push(rounds, e.regionId, e.accepted);  // a round that verified guesses
        push(blocks, e.regionId, e.blockSize);
      }
      else if (e.type === 'region_start') grids.set(e.regionId, e.grid);
    }
  };
  const result = await model.decode(regions.map((r) => r.input), options, onEvents).promise;
  const hits: HitCount = { hits: 0, total: 0 };
  const outcomes = regions.map((r, i): RegionOutcome => {
    const out = result.regions[i]!;
    const grid = grids.get(r.input.id);
    if (options.fixation.enabled && r.source === 'synthetic' && r.input.kind === 'text' && grid) {
      const h = fixationHits(r, grid, tokens.get(r.input.id) ?? []);
      hits.hits += h.hits;
      hits.total += h.total;
    }
    return {
      id: r.input.id, kind: r.input.kind, source: r.source, text: out.text, stats: out.stats,
      score: regionScore(r.input.kind, out.text, r.target), acceptedPerRound: rounds.get(r.input.id) ?? [],
      blockSizes: blocks.get(r.input.id) ?? [],
    };
  });
  return { name, regions: outcomes, hits };
}

/**
 * A later pass of the same configuration folded into an earlier one: each region keeps the earlier pass's
 * output and counts, and the fastest time of each phase. Interference on a shared machine only ever adds
 * time, so the fastest of interleaved passes compares configurations more fairly than one pass each.
 */
export function keepFastest(earlier: ConfigOutcome, later: ConfigOutcome): ConfigOutcome {
  const regions = earlier.regions.map((r, i): RegionOutcome => {
    const t = later.regions[i]!.stats;
    return { ...r, stats: { ...r.stats, encodeMs: Math.min(r.stats.encodeMs, t.encodeMs),
      prefillMs: Math.min(r.stats.prefillMs, t.prefillMs), decodeMs: Math.min(r.stats.decodeMs, t.decodeMs),
      decodeShareMs: Math.min(r.stats.decodeShareMs, t.decodeShareMs),
      attentionMs: Math.min(r.stats.attentionMs, t.attentionMs) } };
  });
  return { ...earlier, regions };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function sum(outcome: ConfigOutcome, pick: (r: RegionOutcome) => number): number {
  return outcome.regions.reduce((s, r) => s + pick(r), 0);
}

export const decodeMs = (o: ConfigOutcome) => sum(o, (r) => r.stats.decodeMs);
export const endToEndMs = (o: ConfigOutcome) => sum(o, (r) => r.stats.encodeMs + r.stats.prefillMs + r.stats.decodeMs);
export const tokensPerForward = (o: ConfigOutcome) => sum(o, (r) => r.stats.tokens) / Math.max(1, sum(o, (r) => r.stats.forwards));
export const meanScore = (o: ConfigOutcome) => sum(o, (r) => r.score) / Math.max(1, o.regions.length);
