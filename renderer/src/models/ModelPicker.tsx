// The model picker, opened from the engine status in the top bar: the loaded model and its card, the
// embedded model and the folders loaded before, and a new folder (the native dialog in Electron, a typed
// path in the browser, which the engine checks). A switch is the whole engine's and waits for no decode.
import { useEffect, useState, type FormEvent } from 'react';
import { useSession, useSessionState } from '../app/session-context';
import { useEscape } from '../app/use-escape';
import { MarkdownView } from './markdown-view';

const TYPE_LABELS: Record<string, string> = { saccade_ocr: 'Saccade checkpoint', glm_ocr: 'GLM-OCR (Hugging Face)' };

export function ModelPicker({ onClose }: { onClose: () => void }) {
  const { actions } = useSession();
  useEscape(onClose);
  const model = useSessionState((s) => s.engine.model);
  const models = useSessionState((s) => s.models);
  const decoding = useSessionState((s) => s.phase === 'decoding');
  const [path, setPath] = useState('');
  useEffect(() => { void actions.refreshRecentModels(); }, [actions]);

  const busy = models.switching || decoding;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (path.trim()) void actions.switchModel(path.trim());
  };

  return (
    <div className="settings-popover model-picker" role="dialog" aria-label="Model" data-testid="model-picker">
      <header className="panel-header"><span>Model</span><button className="icon" onClick={onClose} aria-label="Close">×</button></header>
      {model && (
        <div className="model-current">
          <strong data-testid="model-name">{model.name}</strong>
          <span className="muted">{TYPE_LABELS[model.modelType] ?? model.modelType} · {(model.parameters / 1e6).toFixed(1)}M parameters</span>
          <span className="muted model-path" title={model.path}>{model.embedded ? 'embedded with Saccade' : model.path}</span>
        </div>
      )}
      <div className="model-list" data-testid="model-recent">
        {!model?.embedded && <button disabled={busy} onClick={() => void actions.switchModel(null)}>Embedded model</button>}
        {models.recent.filter((dir) => dir !== model?.path).map((dir) => (
          <button key={dir} disabled={busy} title={dir} onClick={() => void actions.switchModel(dir)}>{dir}</button>
        ))}
      </div>
      {models.nativeDialog
        ? <button disabled={busy} onClick={() => void actions.chooseModelFolder()} data-testid="model-choose">Choose folder…</button>
        : (
          <form className="model-path-form" onSubmit={submit}>
            <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="/path/to/model-folder" aria-label="Model folder"
              spellCheck={false} maxLength={4096} data-testid="model-path" />
            <button type="submit" disabled={busy || !path.trim()} data-testid="model-load">Load</button>
          </form>
        )}
      {decoding && <p className="muted">The model can be switched when the decode has finished.</p>}
      {models.switching && <p className="muted">Loading the model…</p>}
      {models.error && <p className="model-error" role="alert" data-testid="model-error">{models.error}</p>}
      {model?.card
        ? <MarkdownView source={model.card} testId="model-card" />
        : <p className="muted" data-testid="model-card">This model folder has no model card (README.md).</p>}
    </div>
  );
}
