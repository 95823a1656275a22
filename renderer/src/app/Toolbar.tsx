// The top bar: product, document, the primary actions and the engine status.
import { useState } from 'react';
import { ModelPicker } from '../models/ModelPicker';
import { SettingsPanel } from '../panels/SettingsPanel';
import { useSession, useSessionState } from './session-context';
import type { Commands } from './commands';

export function Toolbar({ commands }: { commands: Commands }) {
  const { actions } = useSession();
  const doc = useSessionState((s) => s.doc);
  const phase = useSessionState((s) => s.phase);
  const engine = useSessionState((s) => s.engine);
  const theme = useSessionState((s) => s.theme);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [modelsOpen, setModelsOpen] = useState(false);
  const engineText = engine.status === 'ready'
    ? `${engine.info!.backend} engine · ${engine.model!.name}`
    : engine.status === 'connecting' ? 'connecting to the engine…' : `engine unavailable: ${engine.message ?? ''}`;

  return (
    <header className="toolbar">
      <span className="brand"><span className="brand-mark" aria-hidden>◉</span>Saccade</span>
      <button onClick={() => commands.run('open')} title="Open a PDF or image (Ctrl+O)">Open…</button>
      {doc && (phase === 'decoding'
        ? <button onClick={() => void actions.cancel()} title="Cancel decoding (Esc)">Cancel</button>
        : <button className="primary" onClick={() => void actions.decode()} title="Decode the document (Ctrl+Enter)" data-testid="decode">
          {phase === 'idle' && !doc.draft ? 'Decode' : 'Decode again'}
        </button>)}
      {doc && <button onClick={() => void commands.exportMarkdown()} title="Export Markdown (Ctrl+S)" data-testid="export">Export Markdown</button>}
      {doc && <button onClick={() => void commands.exportSearchablePdf()} title="Export the document's pages with your edited text as a searchable, invisible layer" data-testid="export-pdf">Searchable PDF</button>}
      <span className="spacer" />
      <div className="settings-anchor">
        <button className={`engine-pill ${engine.status}`} data-testid="engine-status" title={engine.model ? `${engine.model.path}: choose the model` : undefined}
          disabled={engine.status !== 'ready'} aria-expanded={modelsOpen} onClick={() => { setModelsOpen(!modelsOpen); setSettingsOpen(false); }}>
          {engineText}
        </button>
        {modelsOpen && <ModelPicker onClose={() => setModelsOpen(false)} />}
      </div>
      <div className="settings-anchor">
        <button onClick={() => { setSettingsOpen(!settingsOpen); setModelsOpen(false); }} aria-expanded={settingsOpen} data-testid="open-settings">Settings</button>
        {settingsOpen && <SettingsPanel onClose={() => setSettingsOpen(false)} />}
      </div>
      <button className="icon" onClick={() => actions.setTheme(theme === 'dark' ? 'light' : 'dark')} title="Toggle theme (Ctrl+Shift+L)" aria-label="Toggle theme">
        {theme === 'dark' ? '☀' : '☾'}
      </button>
      {doc && <button className="icon" onClick={() => void actions.closeDocument()} title="Close document (Ctrl+Shift+W)" aria-label="Close document">×</button>}
    </header>
  );
}
