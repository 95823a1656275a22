// The fixation overlay: a dot per committed token at the centre of its fixation, and the heatmap of the
// token being decoded (or of the tokens under the pointer or selection in the editor). Drawn on a canvas
// from a store subscription, once per animation frame at most, without React renders.
import { useEffect, useRef } from 'react';
import { useSession } from '../app/session-context';
import type { TokenEvent } from '../../../common/engine-types';
import type { DecodeRun, RegionRecord, TokenRef } from '../state/decode-run';
import type { SessionState } from '../state/session-store';
import { fixationCells, fixationCentre, mergeCells, type HeatCell } from './fixation-geometry';
import { SOURCE_COLORS } from './region-colors';

/** A token's fixation centre never changes: computed once per token, not once per frame. */
const centres = new WeakMap<object, { x: number; y: number } | null>();
function centreOf(region: RegionRecord, token: TokenEvent): { x: number; y: number } | null {
  let c = centres.get(token);
  if (c === undefined) {
    c = region.grid && token.fixation ? fixationCentre(region.box, region.grid, token.fixation) : null;
    centres.set(token, c);
  }
  return c;
}

function heatFor(run: DecodeRun, refs: TokenRef[]): HeatCell[] {
  const lists: HeatCell[][] = [];
  for (const ref of refs) {
    const region = run.regions.get(ref.regionId);
    const token = region?.tokens[ref.index];
    if (region?.grid && token?.fixation) lists.push(fixationCells(region.box, region.grid, token.fixation));
  }
  return mergeCells(lists);
}

const HEAT_DOWNSCALE = 6;
const LIVE_INTERVAL_MS = 80;
let scratch: HTMLCanvasElement | null = null;

function heatScratch(width: number, height: number): HTMLCanvasElement {
  scratch ??= document.createElement('canvas');
  const w = Math.ceil(width / HEAT_DOWNSCALE);
  const h = Math.ceil(height / HEAT_DOWNSCALE);
  if (scratch.width !== w || scratch.height !== h) {
    scratch.width = w;
    scratch.height = h;
  }
  return scratch;
}

/**
 * The token dots, drawn incrementally into their own canvas: only tokens that arrived since the last frame
 * are painted, and everything is repainted only when the page, zoom or run changes.
 */
class DotLayer {
  readonly canvas = document.createElement('canvas');
  private key = '';
  private run: DecodeRun | null = null;
  private readonly drawn = new Map<string, number>();

  update(s: SessionState, width: number, height: number, scale: number): void {
    const key = `${s.page}|${scale}|${width}x${height}|${s.overlays.tokens}`;
    const ctx = this.canvas.getContext('2d')!;
    const stale = [...this.drawn].some(([id, n]) => (s.run?.regions.get(id)?.tokens.length ?? 0) < n);
    if (key !== this.key || s.run !== this.run || stale) {
      this.key = key;
      this.run = s.run;
      this.drawn.clear();
      this.canvas.width = width;
      this.canvas.height = height;
    }
    if (!s.run || !s.overlays.tokens) return;
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(scale * dpr, 0, 0, scale * dpr, 0, 0);
    ctx.globalAlpha = 0.55;
    for (const region of s.run.pageRegions(s.page)) {
      if (!region.grid) continue;
      const from = this.drawn.get(region.id) ?? 0;
      for (let i = from; i < region.tokens.length; i++) {
        const t = region.tokens[i]!;
        const c = t.text.trim() ? centreOf(region, t) : null;
        if (!c) continue;
        ctx.fillStyle = SOURCE_COLORS[t.source];
        ctx.beginPath();
        ctx.arc(c.x, c.y, 2.2 / scale + 1.2, 0, Math.PI * 2);
        ctx.fill();
      }
      this.drawn.set(region.id, region.tokens.length);
    }
  }
}

function draw(canvas: HTMLCanvasElement, dots: DotLayer, s: SessionState, scale: number): number {
  const ctx = canvas.getContext('2d')!;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const run = s.run;
  if (!run) return 0;
  const dpr = window.devicePixelRatio || 1;
  dots.update(s, canvas.width, canvas.height, scale);
  if (s.overlays.tokens) ctx.drawImage(dots.canvas, 0, 0);
  ctx.setTransform(scale * dpr, 0, 0, scale * dpr, 0, 0);

  const refs = s.focus ?? (s.phase === 'decoding' && run.live ? [run.live] : []);
  const onPage = refs.filter((r) => run.regions.get(r.regionId)?.page === s.page);
  if (!s.overlays.heatmap || onPage.length === 0) return 0;
  const cells = heatFor(run, onPage);
  // Cells are painted into a small canvas at 1/HEAT_DOWNSCALE of page resolution and scaled up with smoothing:
  // a soft heatmap for the cost of one drawImage (a blur filter per cell is far too slow on software canvas).
  const page = heatScratch(canvas.width, canvas.height);
  const hctx = page.getContext('2d')!;
  hctx.setTransform(1, 0, 0, 1, 0, 0);
  hctx.clearRect(0, 0, page.width, page.height);
  const k = (scale * dpr) / HEAT_DOWNSCALE;
  for (const c of cells) {
    hctx.fillStyle = `rgba(255, ${Math.round(60 + 140 * (1 - c.weight))}, 40, ${Math.min(0.85, 0.15 + c.weight * 0.75)})`;
    hctx.fillRect(c.x * k, c.y * k, Math.max(1, c.w * k), Math.max(1, c.h * k));
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.globalAlpha = 1;
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(page, 0, 0, page.width, page.height, 0, 0, page.width * HEAT_DOWNSCALE, page.height * HEAT_DOWNSCALE);
  ctx.setTransform(scale * dpr, 0, 0, scale * dpr, 0, 0);
  ctx.strokeStyle = 'rgba(255, 120, 40, 0.9)';
  ctx.lineWidth = 1.5 / scale;
  for (const ref of onPage) {
    const region = run.regions.get(ref.regionId)!;
    const t = region.tokens[ref.index];
    const c = t ? centreOf(region, t) : null;
    if (!c) continue;
    ctx.beginPath();
    ctx.arc(c.x, c.y, 7 / scale + 2, 0, Math.PI * 2);
    ctx.stroke();
  }
  return cells.length;
}

export function FixationCanvas({ width, height, scale }: { width: number; height: number; scale: number }) {
  const { store } = useSession();
  const ref = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    const canvas = ref.current!;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * scale * dpr);
    canvas.height = Math.round(height * scale * dpr);
    const dots = new DotLayer();
    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = 0;
    const render = () => {
      frame = 0;
      last = performance.now();
      const s = store.getState();
      const cells = draw(canvas, dots, s, scale);
      canvas.dataset.heatCells = String(cells);
      canvas.dataset.heatOrigin = cells === 0 ? 'none' : s.focus ? 'editor' : 'live';
    };
    render();
    const request = () => { timer = null; if (!frame) frame = requestAnimationFrame(render); };
    const unsubscribe = store.subscribe((s, prev) => {
      if (s.focus !== prev.focus || s.page !== prev.page || s.overlays !== prev.overlays || s.phase !== prev.phase || s.run !== prev.run) {
        request();
      } else if (s.revision !== prev.revision && !timer && !frame) {
        // The stream redraws at most every LIVE_INTERVAL_MS: software-rendered canvases are not free.
        timer = setTimeout(request, Math.max(0, LIVE_INTERVAL_MS - (performance.now() - last)));
      }
    });
    return () => {
      unsubscribe();
      if (frame) cancelAnimationFrame(frame);
      if (timer) clearTimeout(timer);
    };
  }, [store, width, height, scale]);

  return <canvas ref={ref} className="fixation-canvas" data-testid="heatmap" style={{ width: width * scale, height: height * scale }} />;
}
