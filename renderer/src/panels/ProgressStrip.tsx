// Decoding progress: one segment per region of the current page (pending, decoding, done, coloured by
// kind), the document's overall count and the estimated time remaining, and Cancel.
import { useSession, useSessionState } from '../app/session-context';
import { REGION_COLORS } from '../document/region-colors';
import { useFrameRevision } from './use-frame-revision';

function seconds(ms: number): string {
  return ms < 60_000 ? `${Math.max(1, Math.round(ms / 1000))} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function ProgressStrip() {
  useFrameRevision();
  const { actions } = useSession();
  const run = useSessionState((s) => s.run);
  const phase = useSessionState((s) => s.phase);
  const page = useSessionState((s) => s.page);
  const pages = useSessionState((s) => s.doc?.info.pages.length ?? 0);
  if (!run) return null;
  const regions = run.pageRegions(page).filter((r) => r.order !== null);
  const progress = run.progress;
  const status = phase === 'decoding'
    ? progress ? `${progress.regionsDone} of ${progress.regionsTotal} regions${run.remainingMs !== null ? ` · about ${seconds(run.remainingMs)} left` : ''}` : 'laying out the page…'
    : phase === 'done' ? `Decoded ${run.tokens} tokens${progress ? ` in ${seconds(progress.elapsedMs)}` : ''}`
      : phase === 'cancelled' ? 'Cancelled' : phase === 'crashed' ? 'Stopped: the engine crashed' : '';

  return (
    <div className={`progress-strip phase-${phase}`} data-testid="progress" data-phase={phase} data-committed={run.committed}>
      <span className="progress-label">{pages > 1 ? `Page ${page + 1}/${pages} · ` : ''}{status}</span>
      <div className="segments">
        {regions.map((r) => (
          <span key={r.id} className={`segment ${r.status}`} title={`${r.kind} · ${r.status}`}
            style={{ background: r.status === 'pending' ? undefined : REGION_COLORS[r.kind], flexGrow: Math.max(1, (r.box.x1 - r.box.x0) * (r.box.y1 - r.box.y0)) }} />
        ))}
      </div>
      {phase === 'decoding' && <button className="small" onClick={() => void actions.cancel()} data-testid="cancel">Cancel</button>}
    </div>
  );
}
