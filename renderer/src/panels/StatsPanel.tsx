// Decoding statistics: tokens per forward (the speed-up a forward-bound decoder gets), measured tokens per
// second against the AR baseline measured on this model and backend, the share of visual tokens that
// fixation kept, and the engine backend.
import { useSessionState } from '../app/session-context';
import { MODE_NAMES } from '../state/decode-settings';
import { useFrameRevision } from './use-frame-revision';

function Stat({ label, value, hint, testId }: { label: string; value: string; hint?: string; testId?: string }) {
  return (
    <div className="stat" title={hint} data-testid={testId}>
      <span className="stat-value">{value}</span>
      <span className="stat-label">{label}</span>
    </div>
  );
}

export function StatsPanel() {
  useFrameRevision();
  const run = useSessionState((s) => s.run);
  const engine = useSessionState((s) => s.engine);
  const baseline = useSessionState((s) => s.arTokensPerSecond);
  const mode = useSessionState((s) => s.settings.mode);
  const tpf = run?.tokensPerForward ?? null;
  const tps = run?.tokensPerSecond ?? null;
  const share = run?.visualShare ?? null;
  const speedup = tps !== null && baseline ? tps / baseline : null;
  const backend = engine.info ? [engine.info.backend, engine.info.cpuKernels].filter(Boolean).join(' · ') : engine.status === 'unavailable' ? 'unavailable' : '…';

  return (
    <section className="panel stats-panel" data-testid="stats">
      <header className="panel-header"><span>Statistics</span><span className="muted">{MODE_NAMES[mode]}</span></header>
      <div className="stats-grid">
        <Stat label="tokens / forward" value={tpf !== null ? tpf.toFixed(2) : '—'} testId="stat-tpf" />
        <Stat label="tokens / s" value={tps !== null ? tps.toFixed(0) : '—'} hint="tokens the engine committed (readings later replaced or dropped included) over its decode time" />
        <Stat label="speed vs AR" value={speedup !== null ? `${speedup.toFixed(2)}×` : '—'}
          hint={baseline ? `AR baseline ${baseline.toFixed(0)} tokens/s on this backend` : 'decode once in AR mode to measure the baseline'} />
        <Stat label="visual tokens attended" value={share !== null ? `${(share * 100).toFixed(1)}%` : '—'} hint="mean share of the image tokens the non-focal layers attended, over finished regions" />
        <Stat label="tokens" value={run ? String(run.tokens) : '—'} />
        <Stat label={engine.info ? `backend · ${engine.info.threads} threads` : 'backend'} value={backend}
          hint={engine.model ? `${engine.model.name}, ${(engine.model.parameters / 1e6).toFixed(1)}M parameters` : engine.message} />
      </div>
    </section>
  );
}
