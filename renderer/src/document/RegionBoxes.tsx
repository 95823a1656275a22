// The layout regions of the page as boxes coloured by kind: pending ones dashed, the one being decoded bold and
// labelled, finished ones solid, and the text lines the detector found inside them as thin outlines. Clicking
// a box jumps to its text in the editor. Lines whose readings were too unsure to keep are marked on top, with
// what the model guessed, for the user to check and type. Tokens the user asked to see (a picked round, a word
// to check) are outlined where they were read.
import { useSessionState, useSession } from '../app/session-context';
import { editorHandle } from '../editor/editor-handle';
import { REGION_COLORS } from './region-colors';

export function RegionBoxes({ width, height, scale }: { width: number; height: number; scale: number }) {
  const { store } = useSession();
  // A signature of what the boxes show, so the SVG re-renders when a region changes state, not per token.
  const signature = useSessionState((s) => {
    if (!s.run || !s.overlays.boxes) return '';
    return s.run.pageRegions(s.page).map((r) => `${r.id}:${r.status}:${r.unsure.length}`).join('|');
  });
  const selected = useSessionState((s) => s.selectedRegion);
  const spotlight = useSessionState((s) => (s.spotlight?.page === s.page ? s.spotlight.box : null));
  const run = useSessionState((s) => s.run);
  const page = useSessionState((s) => s.page);
  if (!run || !signature) return null;
  const regions = run.pageRegions(page);
  const lines = run.lines.get(page) ?? [];

  return (
    <svg className="region-boxes" width={width * scale} height={height * scale} viewBox={`0 0 ${width} ${height}`} data-testid="region-boxes">
      {lines.map((l, i) => (
        <rect key={`line/${i}`} className="text-line" x={l.x0} y={l.y0} width={l.x1 - l.x0} height={l.y1 - l.y0} strokeWidth={1 / scale} />
      ))}
      {regions.map((r) => {
        const color = REGION_COLORS[r.kind];
        const w = r.box.x1 - r.box.x0;
        const h = r.box.y1 - r.box.y0;
        return (
          <g key={r.id} className={`region-box status-${r.status}${selected === r.id ? ' selected' : ''}`} data-region={r.id}
            onClick={() => { store.setState({ selectedRegion: r.id }); editorHandle.current?.revealRegion(r.id); }}>
            <rect x={r.box.x0} y={r.box.y0} width={w} height={h} stroke={color} fill={color}
              strokeWidth={(selected === r.id || r.status === 'decoding' ? 2.5 : 1.5) / scale} />
            {(selected === r.id || r.status === 'decoding') && (
              <text x={r.box.x0 + 2 / scale} y={r.box.y0 - 4 / scale} fill={color} fontSize={11 / scale}>
                {r.order !== null ? `${r.order + 1} · ` : ''}{r.kind}
              </text>
            )}
            <title>{`${r.order !== null ? `${r.order + 1}. ` : ''}${r.kind} (${r.status})`}</title>
          </g>
        );
      })}
      {spotlight && (
        <rect className="spotlight" data-testid="spotlight" x={spotlight.x0 - 3 / scale} y={spotlight.y0 - 3 / scale}
          width={spotlight.x1 - spotlight.x0 + 6 / scale} height={spotlight.y1 - spotlight.y0 + 6 / scale} strokeWidth={2 / scale} />
      )}
      {regions.flatMap((r) => r.unsure.map((u, i) => (
        <rect key={`${r.id}/unsure/${i}`} className="unsure-line" data-unsure={r.id} x={u.box.x0} y={u.box.y0}
          width={u.box.x1 - u.box.x0} height={u.box.y1 - u.box.y0} strokeWidth={1.5 / scale}>
          <title>{`Not in the text: the model was ${Math.round(100 * u.meanProb)}% sure of "${u.text}"`}</title>
        </rect>
      )))}
    </svg>
  );
}
