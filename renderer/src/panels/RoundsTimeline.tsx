// The rounds timeline: one bar per draft/verify round, its height the tokens the round committed against
// the block size it drafted (the outline), coloured by region kind, with the running tokens per forward as a
// line. Hovering a bar shows that round in detail; clicking one keeps it there and shows what it wrote in the
// editor and on the page. Drawn on a canvas: hundreds of rounds, redrawn per frame.
import { useEffect, useRef } from 'react';
import { useSession } from '../app/session-context';
import { REGION_COLORS } from '../document/region-colors';
import type { SessionState } from '../state/session-store';

const PAD = { left: 34, right: 34, top: 10, bottom: 18 };

function themeColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

function draw(canvas: HTMLCanvasElement, s: SessionState): void {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth;
  const h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const ctx = canvas.getContext('2d')!;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const timeline = s.run?.timeline ?? [];
  const muted = themeColor('--muted');
  const grid = themeColor('--grid');
  const plotW = w - PAD.left - PAD.right;
  const plotH = h - PAD.top - PAD.bottom;
  const maxBlock = Math.max(4, ...timeline.map((r) => r.event.blockSize + 1));
  const y = (v: number) => PAD.top + plotH * (1 - v / maxBlock);

  ctx.font = '10px system-ui, sans-serif';
  ctx.fillStyle = muted;
  ctx.strokeStyle = grid;
  ctx.lineWidth = 1;
  for (const v of [0, Math.round(maxBlock / 2), maxBlock]) {
    ctx.beginPath();
    ctx.moveTo(PAD.left, Math.round(y(v)) + 0.5);
    ctx.lineTo(w - PAD.right, Math.round(y(v)) + 0.5);
    ctx.stroke();
    ctx.textAlign = 'right';
    ctx.fillText(String(v), PAD.left - 6, y(v) + 3);
  }
  if (timeline.length === 0) {
    ctx.textAlign = 'center';
    ctx.fillText('Rounds appear here as the page decodes', w / 2, h / 2);
    return;
  }
  const slot = plotW / timeline.length;
  const barW = Math.max(1, slot * 0.78);
  const selected = s.hoveredRound ?? s.selectedRound ?? timeline.length - 1;
  timeline.forEach((r, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    const kind = s.run!.regions.get(r.regionId)?.kind ?? 'text';
    ctx.fillStyle = grid;
    ctx.fillRect(x, y(r.event.blockSize + 1), barW, y(0) - y(r.event.blockSize + 1));
    ctx.fillStyle = REGION_COLORS[kind];
    ctx.globalAlpha = i === selected ? 1 : 0.78;
    ctx.fillRect(x, y(r.event.committed.length), barW, y(0) - y(r.event.committed.length));
    ctx.globalAlpha = 1;
  });
  const sx = PAD.left + selected * slot + slot / 2;
  ctx.strokeStyle = themeColor('--fg');
  ctx.setLineDash([3, 3]);
  ctx.beginPath();
  ctx.moveTo(Math.round(sx) + 0.5, PAD.top);
  ctx.lineTo(Math.round(sx) + 0.5, PAD.top + plotH);
  ctx.stroke();
  ctx.setLineDash([]);

  // Running tokens per forward, on the right-hand axis.
  const tpf = timeline.map((r) => r.tokensSoFar / Math.max(1, r.forwardsSoFar));
  const maxTpf = Math.max(2, Math.ceil(Math.max(...tpf)));
  const ty = (v: number) => PAD.top + plotH * (1 - v / maxTpf);
  ctx.strokeStyle = themeColor('--accent');
  ctx.lineWidth = 2;
  ctx.beginPath();
  tpf.forEach((v, i) => {
    const x = PAD.left + i * slot + slot / 2;
    if (i === 0) ctx.moveTo(x, ty(v)); else ctx.lineTo(x, ty(v));
  });
  ctx.stroke();
  ctx.fillStyle = themeColor('--accent');
  ctx.textAlign = 'left';
  for (const v of [0, maxTpf / 2, maxTpf]) ctx.fillText(v.toFixed(v % 1 ? 1 : 0), w - PAD.right + 6, ty(v) + 3);
  ctx.fillStyle = muted;
  ctx.fillText(`round ${timeline.length}`, w - PAD.right - 50, h - 4);
  ctx.fillText('1', PAD.left, h - 4);
}

export function RoundsTimeline() {
  const { store, actions } = useSession();
  const ref = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    const canvas = ref.current!;
    let frame = 0;
    const render = () => {
      frame = 0;
      const s = store.getState();
      draw(canvas, s);
      canvas.dataset.rounds = String(s.run?.timeline.length ?? 0);
    };
    const request = () => { if (!frame) frame = requestAnimationFrame(render); };
    render();
    const unsubscribe = store.subscribe((s, prev) => {
      if (s.revision !== prev.revision || s.selectedRound !== prev.selectedRound || s.hoveredRound !== prev.hoveredRound
        || s.run !== prev.run || s.theme !== prev.theme) request();
    });
    const observer = new ResizeObserver(request);
    observer.observe(canvas);
    return () => { unsubscribe(); observer.disconnect(); if (frame) cancelAnimationFrame(frame); };
  }, [store]);

  const roundAt = (e: React.MouseEvent<HTMLCanvasElement>): number | null => {
    const timeline = store.getState().run?.timeline ?? [];
    if (!timeline.length) return null;
    const rect = e.currentTarget.getBoundingClientRect();
    const i = Math.floor(((e.clientX - rect.left - PAD.left) / (rect.width - PAD.left - PAD.right)) * timeline.length);
    return Math.max(0, Math.min(timeline.length - 1, i));
  };

  return (
    <section className="panel timeline-panel">
      <header className="panel-header">
        <span>Rounds</span>
        <span className="legend"><i className="swatch block" />block size + 1 <i className="swatch committed" />committed <i className="swatch line" />tokens / forward</span>
      </header>
      <canvas ref={ref} className="timeline-canvas" data-testid="timeline"
        onPointerMove={(e) => store.setState({ hoveredRound: roundAt(e) })}
        onPointerLeave={() => store.setState({ hoveredRound: null })}
        onClick={(e) => { const i = roundAt(e); if (i !== null) actions.pickRound(i); }} />
    </section>
  );
}
