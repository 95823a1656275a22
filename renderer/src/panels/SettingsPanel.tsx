// Decoding settings, remembered between runs; they apply to the next decode.
import type { DecodeMode } from '../../../common/engine-types';
import { modeUnavailable } from '../../../common/protocol';
import { useSession, useSessionState } from '../app/session-context';
import { useEscape } from '../app/use-escape';
import { BLOCK_SIZES } from '../state/decode-settings';

export function SettingsPanel({ onClose }: { onClose: () => void }) {
  const { actions } = useSession();
  useEscape(onClose);
  const s = useSessionState((st) => st.settings);
  const model = useSessionState((st) => st.engine.model);
  const unavailable = (mode: DecodeMode) => (model ? modeUnavailable(model, mode) : null);
  const option = (mode: DecodeMode, label: string) => (
    <option value={mode} disabled={unavailable(mode) !== null} title={unavailable(mode) ?? undefined}>{label}</option>
  );
  // One line for what the loaded model cannot run, rather than a tooltip that a disabled option may not show.
  const reasons = [...new Set((['spec', 'mtp', 'diffusion'] as const).map(unavailable).filter((r) => r !== null))];
  return (
    <div className="settings-popover" role="dialog" aria-label="Decoding settings" data-testid="settings">
      <header className="panel-header"><span>Decoding</span><button className="icon" onClick={onClose} aria-label="Close">×</button></header>
      <label>Mode
        <select value={s.mode} onChange={(e) => actions.updateSettings({ mode: e.target.value as typeof s.mode })} data-testid="setting-mode">
          {option('spec', 'Self-speculative (draft + verify)')}
          {option('mtp', 'MTP head (drafts + verify)')}
          {option('ar', 'Autoregressive')}
          {option('diffusion', 'Diffusion')}
        </select>
        {reasons.length > 0 && <span className="muted" data-testid="mode-limits">Some modes are off: {reasons.join('; ')}.</span>}
      </label>
      <label>Block size
        <select value={String(s.blockSize)} disabled={s.mode === 'ar'} data-testid="setting-block"
          onChange={(e) => actions.updateSettings({ blockSize: e.target.value === 'auto' ? 'auto' : Number(e.target.value) })}>
          <option value="auto">Automatic</option>
          {BLOCK_SIZES.map((b) => <option key={b} value={b}>{b}</option>)}
        </select>
      </label>
      <label><span>τ<sub>c</sub> (diffusion confidence) <output>{s.tauC.toFixed(2)}</output></span>
        <input type="range" min={0.5} max={0.99} step={0.01} value={s.tauC} disabled={s.mode !== 'diffusion'}
          onChange={(e) => actions.updateSettings({ tauC: Number(e.target.value) })} />
      </label>
      <label className="row"><input type="checkbox" checked={s.fixation} onChange={(e) => actions.updateSettings({ fixation: e.target.checked })} /> Fixation (where the model looks)</label>
      <label title="Below 100% the layers after the focal ones read only the image tokens the focal layers chose: faster attention, and with the current model less accurate text.">
        <span>Image tokens kept <output>{s.keepRatio >= 1 ? 'all' : `${Math.round(s.keepRatio * 100)}%`}</output></span>
        <input type="range" min={0.02} max={1} step={0.01} value={s.keepRatio} disabled={!s.fixation}
          onChange={(e) => actions.updateSettings({ keepRatio: Number(e.target.value) })} />
      </label>
      <p className="muted" data-testid="fixation-explained">
        {!s.fixation ? 'Fixation off: no heatmaps are recorded.'
          : s.keepRatio >= 1 ? 'Fixation watches: it records where the model looked (the heatmaps) and prunes nothing, so every image token is still read.'
            : `Fixation prunes: the layers after the focal ones read ${Math.round(s.keepRatio * 100)}% of the image tokens.`}
      </p>
      <p className="muted">Settings apply to the next decode.</p>
    </div>
  );
}
