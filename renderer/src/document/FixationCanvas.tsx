// The fixation overlay: a dot per committed token at the centre of its fixation, and the heatmap of the
// token being decoded (or of the tokens under the pointer or selection in the editor). Drawn on a canvas
// from a store subscription, once per animation frame at most, without React renders.
import { useEffect, useRef } from 'react';
import { useSession } from '../app/session-context';
import type { DecodeRun, TokenRef } from '../state/decode-run';
import type { SessionState } from '../state/session-store';
import { fixationCells, fixationCentre, mergeCells, type HeatCell } from './fixation-geometry';
import { SOURCE_COLORS } from './region-colors';

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

function draw(canvas: HTMLCanvasElement, s: SessionState, scale: number): number {
  const ctx = canvas.getContext('2d')!;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const run = s.run;
  if (!run) return 0;
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(scale * dpr, 0, 0, scale * dpr, 0, 0);

  if (s.overlays.tokens) {
    for (const region of run.pageRegions(s.page)) {
      if (!region.grid) continue;
      for (const t of region.tokens) {
        if (!t.fixation || !t.text.trim()) continue;
        const c = fixationCentre(region.box, region.grid, t.fixation);
        if (!c) continue;
        ctx.fillStyle = SOURCE_COLORS[t.source];
        ctx.globalAlpha = 0.55;
        ctx.beginPath();
        ctx.arc(c.x, c.y, 2.2 / scale + 1.2, 0, Math.PI * 2);
        ctx.fill();
      }
    }
  }
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
    const c = region.grid && t?.fixation ? fixationCentre(region.box, region.grid, t.fixation) : null;
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
    let frame = 0;
    const render = () => {
      frame = 0;
      const s = store.getState();
      const cells = draw(canvas, s, scale);
      canvas.dataset.heatCells = String(cells);
      canvas.dataset.heatOrigin = cells === 0 ? 'none' : s.focus ? 'editor' : 'live';
    };
    render();
    const unsubscribe = store.subscribe((s, prev) => {
      if (s.revision === prev.revision && s.focus === prev.focus && s.page === prev.page && s.overlays === prev.overlays && s.phase === prev.phase && s.run === prev.run) return;
      if (!frame) frame = requestAnimationFrame(render);
    });
    return () => {
      unsubscribe();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [store, width, height, scale]);

  return <canvas ref={ref} className="fixation-canvas" data-testid="heatmap" style={{ width: width * scale, height: height * scale }} />;
}
