// What a document's decode streamed, per layout region, kept until its page is written out: the page's JSON
// (region boxes and types, with the rounds and tokens the UI replays, and the lines whose unsure readings were
// left out of the text), its hOCR words, and the words with their boxes for evaluation. Tokens are kept as the
// text stands: a retract takes back what it retracts. A page written out is forgotten.
import type { EngineEvent, RegionStats, TokenEvent } from '../../../common/engine-types';
import type { Box, LayoutRegion, SessionEvent } from '../../../common/protocol';
import type { HocrRegion } from '../exports/hocr';
import { regionWords } from '../pipeline/write/word-boxes';

interface RecordedRegion extends LayoutRegion {
  grid: { rows: number; cols: number } | null;
  rounds: Array<Extract<EngineEvent, { type: 'round' }>>;
  tokens: TokenEvent[];
  unsure: Array<{ box: Box; text: string; meanProb: number }>;
  text?: string;
  stats?: RegionStats;
}

interface RecordedPage {
  regions: RecordedRegion[];
  textAngle: number;
  /** Each text line crop's groups of ink, by the crop's box. */
  ink: Map<string, Box[]>;
}

export class RunRecorder {
  private readonly pages = new Map<number, RecordedPage>();
  private readonly byId = new Map<string, RecordedRegion>();

  record(events: SessionEvent[]): void {
    for (const e of events) {
      if (e.type === 'page_layout') {
        const regions = e.regions.map((r): RecordedRegion => ({ ...r, grid: null, rounds: [], tokens: [], unsure: [] }));
        for (const r of regions) this.byId.set(r.id, r);
        this.pages.set(e.page, { regions, textAngle: e.textAngle, ink: new Map(e.lines.map((l) => [boxKey(l.box), l.inkWords])) });
      } else if (e.type === 'unsure_line') {
        this.byId.get(e.regionId)?.unsure.push({ box: e.box, text: e.text, meanProb: e.meanProb });
      } else if (e.type === 'region_start' || e.type === 'round' || e.type === 'token' || e.type === 'retract' || e.type === 'region_end') {
        const r = this.byId.get(e.regionId);
        if (!r) continue;
        if (e.type === 'region_start') r.grid = e.grid;
        else if (e.type === 'round') r.rounds.push(e);
        else if (e.type === 'token') r.tokens.push(e);
        else if (e.type === 'retract') r.tokens.length = Math.min(r.tokens.length, e.index);
        else {
          r.text = e.text;
          r.stats = e.stats;
        }
      }
    }
  }

  /** A page's regions as the JSON output holds them. */
  pageJSON(page: number): unknown {
    const regions = this.pages.get(page)?.regions ?? [];
    return { page, regions: regions.map(({ grid: _grid, ...r }) => ({ ...r, rounds: r.rounds.map(stripRegion), tokens: r.tokens.map(stripRegion) })) };
  }

  /** A page's read regions in reading order, with their lines and words. */
  pageWords(page: number): HocrRegion[] {
    const recorded = this.pages.get(page);
    if (!recorded) return [];
    return recorded.regions
      .filter((r) => r.tokens.length > 0)
      .sort((a, b) => (a.order ?? Infinity) - (b.order ?? Infinity))
      .map((r) => ({ region: r, lines: regionWords(r.box, r.grid, r.tokens, r.kind === 'table', (b) => recorded.ink.get(boxKey(b))) }));
  }

  /** The direction the page's text runs in (PageLayoutEvent.textAngle); 0 for a page not laid out. */
  pageTextAngle(page: number): number {
    return this.pages.get(page)?.textAngle ?? 0;
  }

  /** Drops what was kept of a page that has been written out. */
  forget(page: number): void {
    for (const r of this.pages.get(page)?.regions ?? []) this.byId.delete(r.id);
    this.pages.delete(page);
  }
}

function stripRegion(e: { type: string; regionId: string }): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...e };
  delete rest.type;
  delete rest.regionId;
  return rest;
}

function boxKey(b: Box): string {
  return `${b.x0},${b.y0},${b.x1},${b.y1}`;
}
