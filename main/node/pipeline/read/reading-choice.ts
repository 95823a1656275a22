// One reading per text line. A line's first view (line-views.ts) is read first; a reading whose tokens
// average at least SURE_MEAN_LOG_PROB is kept as it is, and only the other lines are read in the other views.
// Of several readings, the one whose tokens the model gave the highest joint probability is kept: the product
// of the verifier's probability of every token kept (tokens the repetition guard took back do not count; an
// empty reading, whose end-of-text probability is not reported, loses to any other). A kept reading whose
// tokens average below MIN_MEAN_LOG_PROB is dropped: on scans such readings are nearly always invented, from
// a stamp, a signature or a drawing the detector took for text, or garbled beyond use
// (docs/decisions/0015-line-views.md), and the line or table cell reads as empty. A line's first view streams
// live under the crop's id, so the user watches it being read; its end waits for the choice. When another
// view wins, the first view's tokens are taken back (a retract at index 0) and the winner's follow, its rounds
// numbered after the first view's; a dropped reading is taken back the same way. Later views are held until
// the choice. Tables and formulas read whole stream live. The cost of every view read stays in the crop's
// statistics, so throughput figures count the work done.
import type { EngineEvent, RegionEndEvent, RegionKind, RegionStats } from '../../../../common/engine-types';

/** Mean natural log of the token probabilities below which a line's reading is dropped (e^-0.3 = 0.74). */
export const MIN_MEAN_LOG_PROB = -0.3;

/** Mean natural log of the token probabilities from which a first view's reading needs no other (e^-0.1 = 0.90). */
export const SURE_MEAN_LOG_PROB = -0.1;

interface ViewReading {
  /** Held events (later views only: the first view's stream live). */
  events: EngineEvent[];
  /** Verifier probability of each kept token, by index. */
  probs: number[];
  /** Rounds seen (in round and token events): a later view's rounds are numbered after them. */
  rounds: number;
  end: RegionEndEvent | null;
}

interface CropReadings {
  cropId: string;
  /** In the crop's order of views: the first is read first, and streams live. */
  views: Map<string, ViewReading>;
  firstViewId: string;
}

/** Natural log of a reading's joint probability; a probability of zero counts as 1e-9. */
export function readingLogProb(probs: readonly number[]): number {
  return probs.reduce((s, p) => s + Math.log(Math.max(p, 1e-9)), 0);
}

function meanLogProb(probs: readonly number[]): number {
  return probs.length > 0 ? readingLogProb(probs) / probs.length : 0;
}

function withCostOf(kept: RegionStats, all: RegionStats[]): RegionStats {
  const sum = (k: 'forwards' | 'committed' | 'encodeMs' | 'prefillMs' | 'decodeMs' | 'decodeShareMs' | 'attentionMs') => all.reduce((s, x) => s + x[k], 0);
  return { ...kept, forwards: sum('forwards'), committed: sum('committed'), encodeMs: sum('encodeMs'), prefillMs: sum('prefillMs'),
    decodeMs: sum('decodeMs'), decodeShareMs: sum('decodeShareMs'), attentionMs: sum('attentionMs') };
}

/** A reading that was not kept, for the user to check. */
export interface DroppedReading {
  cropId: string;
  text: string;
  /** Geometric mean of its tokens' probabilities. */
  meanProb: number;
}

export class ReadingChooser {
  private readonly byView = new Map<string, CropReadings>();
  private readonly live = new Map<string, string>();
  /** The view whose reading each crop kept, by crop id; absent for a line whose reading was dropped. */
  readonly chosen = new Map<string, string>();

  constructor(
    crops: ReadonlyArray<{ id: string; kind: RegionKind; views: ReadonlyArray<{ id: string }> }>,
    private readonly forward: (events: EngineEvent[]) => void,
    /** Called for each dropped reading; null keeps every reading, however unsure. */
    private readonly onDropped: ((reading: DroppedReading) => void) | null,
  ) {
    for (const c of crops) {
      if (c.kind !== 'text') {
        for (const v of c.views) this.live.set(v.id, c.id);
        this.chosen.set(c.id, c.views[0]!.id);
        continue;
      }
      const readings: CropReadings = { cropId: c.id, views: new Map(), firstViewId: c.views[0]!.id };
      for (const v of c.views) {
        readings.views.set(v.id, { events: [], probs: [], rounds: 0, end: null });
        this.byView.set(v.id, readings);
      }
    }
  }

  push(events: EngineEvent[]): void {
    const out: EngineEvent[] = [];
    for (const e of events) {
      const cropId = this.live.get(e.regionId);
      if (cropId !== undefined) {
        out.push({ ...e, regionId: cropId });
        continue;
      }
      const crop = this.byView.get(e.regionId);
      if (!crop) continue;
      const view = crop.views.get(e.regionId)!;
      if (e.type === 'token') view.probs[e.index] = e.arProb;
      if (e.type === 'retract') view.probs.length = Math.min(view.probs.length, e.index);
      if (e.type === 'round' || e.type === 'token') view.rounds = Math.max(view.rounds, e.round + 1);
      if (e.type === 'region_end') {
        view.end = e;
        this.decide(crop, out);
      } else if (e.regionId === crop.firstViewId) out.push({ ...e, regionId: crop.cropId });
      else view.events.push(e);
    }
    if (out.length) this.forward(out);
  }

  /** Views of lines whose first reading was not sure enough: what to read next. */
  awaiting(): string[] {
    const ids: string[] = [];
    for (const [id, crop] of this.byView) {
      const first = crop.views.values().next().value!;
      if (first.end !== null && crop.views.get(id)!.end === null) ids.push(id);
    }
    return ids;
  }

  private decide(crop: CropReadings, out: EngineEvent[]): void {
    const all = [...crop.views.entries()];
    const first = all[0]![1];
    const sure = first.end !== null && first.probs.length > 0 && meanLogProb(first.probs) >= SURE_MEAN_LOG_PROB;
    if (!sure && all.some(([, v]) => v.end === null)) return;
    for (const [id] of all) this.byView.delete(id);
    const views = all.filter(([, v]) => v.end !== null);
    const score = (r: ViewReading) => (r.probs.length > 0 ? readingLogProb(r.probs) : -Infinity);
    let best = views[0]!;
    for (const candidate of views.slice(1)) {
      if (score(candidate[1]) > score(best[1])) best = candidate;
    }
    const [bestId, reading] = best;
    const stats = withCostOf(reading.end!.stats, views.map(([, v]) => v.end!.stats));
    const mean = meanLogProb(reading.probs);
    const takeBackFirst = () => {
      if (first.probs.length > 0) out.push({ type: 'retract', regionId: crop.cropId, index: 0 });
    };
    if (this.onDropped && mean < MIN_MEAN_LOG_PROB) {
      // The line keeps its place in the region and reads as nothing.
      this.onDropped({ cropId: crop.cropId, text: reading.end!.text, meanProb: Math.exp(mean) });
      takeBackFirst();
      out.push({ ...reading.end!, regionId: crop.cropId, text: '', stats: { ...stats, tokens: 0 } });
      return;
    }
    this.chosen.set(crop.cropId, bestId);
    if (reading !== first) {
      takeBackFirst();
      const after = first.rounds;
      for (const e of reading.events) {
        out.push(e.type === 'round' || e.type === 'token' ? { ...e, regionId: crop.cropId, round: e.round + after } : { ...e, regionId: crop.cropId });
      }
    }
    out.push({ ...reading.end!, regionId: crop.cropId, stats });
  }
}
