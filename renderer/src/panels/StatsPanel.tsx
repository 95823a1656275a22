// Decoding statistics: tokens per forward (the speed-up a forward-bound decoder gets), measured tokens per
// second, the speed against AR the engine estimates from its own timing, the share of visual tokens the
// decoder attended (and whether fixation pruned any), and the engine backend.
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
  const mode = useSessionState((s) => s.settings.mode);
  const tpf = run?.tokensPerForward ?? null;
  const tps = run?.tokensPerSecond ?? null;
  const share = run?.visualShare ?? null;
  const speedup = run?.speedVsAr ?? null;
  // Fixation that keeps every image token only records where the model looked; it prunes below a keep ratio of 1.
  const pruning = share !== null && share < 0.999;
  const backend = engine.info ? [engine.info.backend, engine.info.cpuKernels].filter(Boolean).join(' · ') : engine.status === 'unavailable' ? 'unavailable' : '…';

  return (
    <section className="panel stats-panel" data-testid="stats">
      <header className="panel-header"><span>Statistics</span><span className="muted">{MODE_NAMES[mode]}</span></header>
      <div className="stats-grid">
        <Stat label="tokens / forward" value={tpf !== null ? tpf.toFixed(2) : '—'} testId="stat-tpf" />
        <Stat label="tokens / s" value={tps !== null ? tps.toFixed(0) : '—'} hint="tokens the engine committed (readings later replaced or dropped included) over its decode time" />
        <Stat label="speed vs AR" value={speedup !== null ? `${speedup.toFixed(2)}×` : '—'} testId="stat-speedup"
          hint={'Estimated by the engine on this machine, over finished regions: the time plain AR decoding would take for the same tokens (one forward per token, priced by the engine\'s own timing of its forwards by width, calibrated on what this decode\'s verifying rounds really took) over the time this decode took. 1.00× in AR mode; none for pure diffusion, which verifies nothing.'} />
        <Stat label="visual tokens attended" testId="stat-visual"
          value={share === null ? '—' : pruning ? `${(share * 100).toFixed(1)}%` : 'all'}
          hint={share === null
            ? 'Fixation is off: every layer attends to every image token, and no heatmap is recorded.'
            : pruning
              ? `Fixation prunes: the layers after the focal ones attended ${(share * 100).toFixed(1)}% of the image tokens on average.`
              : 'Fixation only watches: the focal layers record where the model looked (the heatmaps), and every layer still attends to every image token. Set a keep ratio under 1 in Settings to prune.'} />
        <Stat label="tokens" value={run ? String(run.tokens) : '—'} />
        <Stat label={engine.info ? `backend · ${engine.info.threads} threads` : 'backend'} value={backend}
          hint={engine.model ? `${engine.model.name}, ${(engine.model.parameters / 1e6).toFixed(1)}M parameters` : engine.message} />
      </div>
    </section>
  );
}
