// The scan: the current page with its region boxes and fixation overlay, zoom (buttons, Ctrl+wheel) and
// pan (drag), and page thumbnails with per-page progress when the document has more than one page.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useSession, useSessionState } from '../app/session-context';
import { FixationCanvas } from './FixationCanvas';
import { openRaster, type PageRaster } from './page-raster';
import { RegionBoxes } from './RegionBoxes';
import { WHEEL_STEP, ZOOM_STEP } from './zoom';

function PageCanvas({ raster, index, width, testId }: { raster: PageRaster; index: number; width: number; testId?: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const [missing, setMissing] = useState(false);
  useEffect(() => {
    let live = true;
    const dpr = window.devicePixelRatio || 1;
    raster.draw(index, ref.current!, width * dpr).then((ok) => live && setMissing(!ok), () => live && setMissing(true));
    return () => { live = false; };
  }, [raster, index, width]);
  return (
    <>
      <canvas ref={ref} className="page-canvas" data-testid={testId} style={{ width }} />
      {missing && <div className="page-missing">No preview for this format; the layout is shown.</div>}
    </>
  );
}

function Thumbnails({ raster }: { raster: PageRaster }) {
  const { store } = useSession();
  const doc = useSessionState((s) => s.doc)!;
  const current = useSessionState((s) => s.page);
  const done = useSessionState((s) => doc.info.pages.map((p) => {
    const regions = s.run?.pageRegions(p.index) ?? [];
    return regions.length ? regions.filter((r) => r.status === 'done').length / regions.length : 0;
  }).join(','));
  const fractions = done.split(',').map(Number);
  return (
    <nav className="thumbnails" aria-label="Pages">
      {doc.info.pages.map((p) => (
        <button key={p.index} className={p.index === current ? 'thumb active' : 'thumb'} onClick={() => store.setState({ page: p.index })}>
          <PageCanvas raster={raster} index={p.index} width={96} />
          <span className="thumb-label">{p.index + 1}</span>
          <span className="thumb-progress" style={{ width: `${(fractions[p.index] ?? 0) * 100}%` }} />
        </button>
      ))}
    </nav>
  );
}

export function DocumentPane() {
  const { store, actions } = useSession();
  const doc = useSessionState((s) => s.doc)!;
  const pageIndex = useSessionState((s) => s.page);
  const zoom = useSessionState((s) => s.zoom);
  const overlays = useSessionState((s) => s.overlays);
  const scroller = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState({ w: 800, h: 600 });
  const raster = useMemo(() => openRaster(doc.info.format, doc.bytes), [doc.info.format, doc.bytes]);
  useEffect(() => () => raster.close(), [raster]);

  useLayoutEffect(() => {
    const el = scroller.current!;
    const observer = new ResizeObserver(() => setViewport({ w: el.clientWidth, h: el.clientHeight }));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const page = doc.info.pages[pageIndex] ?? doc.info.pages[0]!;
  const fit = Math.min((viewport.w - 32) / page.width, (viewport.h - 32) / page.height);
  const scale = zoom === 'fit' ? Math.max(0.05, fit) : zoom;
  useEffect(() => store.setState({ fitScale: Math.max(0.05, fit) }), [store, fit]);

  // Tokens the user asked to see are scrolled into the middle of the view.
  const spotlight = useSessionState((s) => s.spotlight);
  useEffect(() => {
    const el = scroller.current;
    if (!el || !spotlight || spotlight.page !== pageIndex) return;
    const { box } = spotlight;
    el.scrollTo({ left: ((box.x0 + box.x1) / 2) * scale - el.clientWidth / 2, top: ((box.y0 + box.y1) / 2) * scale - el.clientHeight / 2 });
  }, [spotlight, pageIndex, scale]);

  useEffect(() => {
    const el = scroller.current!;
    const wheel = (e: WheelEvent) => {
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      actions.zoomBy(e.deltaY < 0 ? WHEEL_STEP : 1 / WHEEL_STEP);
    };
    el.addEventListener('wheel', wheel, { passive: false });
    return () => el.removeEventListener('wheel', wheel);
  }, [actions]);

  const drag = useRef<{ x: number; y: number; left: number; top: number } | null>(null);
  const onPointerDown = (e: React.PointerEvent) => {
    if (e.button !== 0 || (e.target as Element).closest('.region-box')) return;
    const el = scroller.current!;
    drag.current = { x: e.clientX, y: e.clientY, left: el.scrollLeft, top: el.scrollTop };
    el.setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: React.PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    scroller.current!.scrollLeft = d.left - (e.clientX - d.x);
    scroller.current!.scrollTop = d.top - (e.clientY - d.y);
  };

  const pages = doc.info.pages.length;
  return (
    <section className="document-pane" data-testid="document-pane">
      <header className="pane-header">
        <span className="pane-title">{doc.info.name}</span>
        {pages > 1 && (
          <span className="page-nav">
            <button className="icon" title="Previous page" disabled={pageIndex === 0} onClick={() => store.setState({ page: pageIndex - 1 })}>‹</button>
            <span data-testid="page-number">{pageIndex + 1} / {pages}</span>
            <button className="icon" title="Next page" disabled={pageIndex >= pages - 1} onClick={() => store.setState({ page: pageIndex + 1 })}>›</button>
          </span>
        )}
        <span className="spacer" />
        <span className="toggle-group" role="group" aria-label="Overlays">
          <button className={overlays.boxes ? 'chip on' : 'chip'} onClick={() => actions.toggleOverlay('boxes')} title="Region boxes">Regions</button>
          <button className={overlays.heatmap ? 'chip on' : 'chip'} onClick={() => actions.toggleOverlay('heatmap')} title="Fixation heatmap">Heatmap</button>
          <button className={overlays.tokens ? 'chip on' : 'chip'} onClick={() => actions.toggleOverlay('tokens')} title="Token fixation centres">Tokens</button>
        </span>
        <span className="zoom">
          <button className="icon" title="Zoom out (Ctrl+-)" onClick={() => actions.zoomBy(1 / ZOOM_STEP)}>−</button>
          <button className="zoom-value" title="Fit page (Ctrl+0)" onClick={() => actions.setZoom('fit')}>{Math.round(scale * 100)}%</button>
          <button className="icon" title="Zoom in (Ctrl+=)" onClick={() => actions.zoomBy(ZOOM_STEP)}>+</button>
        </span>
      </header>
      <div className="document-body">
        {pages > 1 && <Thumbnails raster={raster} />}
        <div className="page-scroller" ref={scroller} onPointerDown={onPointerDown} onPointerMove={onPointerMove}
          onPointerUp={() => { drag.current = null; }}>
          <div className="page" style={{ width: page.width * scale, height: page.height * scale }}>
            <PageCanvas raster={raster} index={page.index} width={page.width * scale} testId="page-canvas" />
            <FixationCanvas width={page.width} height={page.height} scale={scale} />
            <RegionBoxes width={page.width} height={page.height} scale={scale} />
          </div>
        </div>
      </div>
    </section>
  );
}
