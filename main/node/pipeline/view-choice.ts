// A crop read in several views (line-views.ts) keeps one reading: the one whose tokens the model gave the
// highest joint probability, the product of the verifier's probability of every token kept (tokens the
// repetition guard took back do not count). A crop's events are held until all its views have ended, then
// the winner's events go on under the crop's id; a crop with one view streams live. The cost of every view
// stays in the crop's statistics, so throughput figures count the work really done.
import type { EngineEvent, RegionEndEvent, RegionStats } from '../../../common/engine-types';

interface ViewReading {
  events: EngineEvent[];
  /** Verifier probability of each kept token, by index. */
  probs: number[];
  end: RegionEndEvent | null;
}

interface CropReadings {
  cropId: string;
  views: Map<string, ViewReading>;
}

/** Natural log of a reading's joint probability; a probability of zero counts as 1e-9. */
export function readingLogProb(probs: readonly number[]): number {
  let s = 0;
  for (const p of probs) s += Math.log(Math.max(p, 1e-9));
  return s;
}

function withCostOf(chosen: RegionStats, all: RegionStats[]): RegionStats {
  const sum = (k: 'forwards' | 'encodeMs' | 'prefillMs' | 'decodeMs' | 'attentionMs') => all.reduce((s, x) => s + x[k], 0);
  return { ...chosen, forwards: sum('forwards'), encodeMs: sum('encodeMs'), prefillMs: sum('prefillMs'), decodeMs: sum('decodeMs'), attentionMs: sum('attentionMs') };
}

export class ViewChooser {
  private readonly byView = new Map<string, CropReadings>();
  private readonly single = new Map<string, string>();
  /** The view whose reading each crop kept, by crop id. */
  readonly chosen = new Map<string, string>();

  constructor(
    crops: ReadonlyArray<{ id: string; views: ReadonlyArray<{ id: string }> }>,
    private readonly forward: (events: EngineEvent[]) => void,
  ) {
    for (const c of crops) {
      if (c.views.length === 1) {
        this.single.set(c.views[0]!.id, c.id);
        this.chosen.set(c.id, c.views[0]!.id);
        continue;
      }
      const readings: CropReadings = { cropId: c.id, views: new Map() };
      for (const v of c.views) {
        readings.views.set(v.id, { events: [], probs: [], end: null });
        this.byView.set(v.id, readings);
      }
    }
  }

  push(events: EngineEvent[]): void {
    const out: EngineEvent[] = [];
    for (const e of events) {
      const cropId = this.single.get(e.regionId);
      if (cropId !== undefined) {
        out.push({ ...e, regionId: cropId });
        continue;
      }
      const crop = this.byView.get(e.regionId);
      if (!crop) continue;
      const view = crop.views.get(e.regionId)!;
      view.events.push(e);
      if (e.type === 'token') view.probs[e.index] = e.arProb;
      if (e.type === 'retract') view.probs.length = Math.min(view.probs.length, e.index);
      if (e.type === 'region_end') {
        view.end = e;
        this.decide(crop, out);
      }
    }
    if (out.length) this.forward(out);
  }

  private decide(crop: CropReadings, out: EngineEvent[]): void {
    const views = [...crop.views.entries()];
    if (views.some(([, v]) => v.end === null)) return;
    let best = views[0]!;
    for (const candidate of views.slice(1)) {
      if (readingLogProb(candidate[1].probs) > readingLogProb(best[1].probs)) best = candidate;
    }
    const [bestId, reading] = best;
    this.chosen.set(crop.cropId, bestId);
    const stats = withCostOf(reading.end!.stats, views.map(([, v]) => v.end!.stats));
    for (const e of reading.events) {
      out.push(e.type === 'region_end' ? { ...e, regionId: crop.cropId, stats } : { ...e, regionId: crop.cropId });
    }
    for (const [id] of views) this.byView.delete(id);
  }
}
