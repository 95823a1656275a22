// The window: welcome view until a document is open, then the workspace (document | editor, with the
// rounds timeline, round detail and statistics below), under one notification area.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { createCommands, shortcutFor } from './app/commands';
import { SessionContext } from './app/session-context';
import { CHECK_BELOW } from '../../common/confidence';
import { DecodeAgainDialog } from './app/DecodeAgainDialog';
import { closeTopmost } from './app/use-escape';
import { NotificationArea } from './app/NotificationArea';
import { Toolbar } from './app/Toolbar';
import { Welcome } from './app/Welcome';
import { DocumentPane } from './document/DocumentPane';
import { CheckNavigator } from './editor/CheckNavigator';
import { MarkdownEditor } from './editor/MarkdownEditor';
import { MarkdownPreview } from './editor/MarkdownPreview';
import { ProgressStrip } from './panels/ProgressStrip';
import { RoundDetail } from './panels/RoundDetail';
import { RoundsTimeline } from './panels/RoundsTimeline';
import { StatsPanel } from './panels/StatsPanel';
import { browserStorage } from './state/persisted';
import { indexedDbRunStore } from './state/run-store';
import { createSession } from './state/session-store';
import type { Transport } from './transport/transport';

function Workspace() {
  const [preview, setPreview] = useState(false);
  return (
    <main className="workspace" data-testid="workspace">
      <DocumentPane />
      <section className="editor-pane">
        <header className="pane-header">
          <span className="pane-title">Markdown</span><CheckNavigator /><span className="spacer" /><TintLegend />
          <button className={preview ? 'chip on' : 'chip'} aria-pressed={preview} onClick={() => setPreview(!preview)} data-testid="preview-toggle"
            title="Show the Markdown rendered beside it: tables as tables; a click there selects its source">Preview</button>
        </header>
        <ProgressStrip />
        <div className={preview ? 'editor-split' : 'editor-whole'}>
          <MarkdownEditor />
          {preview && <MarkdownPreview />}
        </div>
      </section>
      <div className="bottom-panels">
        <RoundsTimeline />
        <RoundDetail />
        <StatsPanel />
      </div>
    </main>
  );
}

function TintLegend() {
  return (
    <span className="tint-legend" title="How each token was committed">
      <i className="tok tok-ar">free</i><i className="tok tok-accepted">accepted</i><i className="tok tok-corrected">corrected</i>
      <i className="tok tok-diffusion">diffusion</i>
      <i className="tok tok-encoder" title="A line the decoder cannot write (a script outside its vocabulary), read by the line encoder alone">encoder</i><i className="tok tok-check" title={`Its confidence is under ${CHECK_BELOW} (the decoder and the line's own reading do not both read it so): its word is one to check (F8)`}>check</i>
    </span>
  );
}

export function App({ transport }: { transport: Transport }) {
  const session = useMemo(() => createSession(transport, browserStorage(), (flush) => requestAnimationFrame(flush), indexedDbRunStore()), [transport]);
  const fileInput = useRef<HTMLInputElement>(null);
  // Inside Electron, main shows the native dialog and reads the file (it keeps Open Recent and opens a new
  // window when this one already shows a document); in a browser, the file input does.
  const commands = useMemo(() => createCommands(session, transport,
    () => (transport.shell ? transport.shell.showOpenDialog() : fileInput.current?.click())), [session, transport]);
  const [dragging, setDragging] = useState(false);
  const hasDoc = useStore(session.store, (s) => s.doc !== null);
  const theme = useStore(session.store, (s) => s.theme);

  useEffect(() => { void session.actions.connect(); }, [session]);
  useEffect(() => { document.documentElement.dataset.theme = theme; }, [theme]);
  // The autosave waits for typing to pause; a reload or a closed window must not take the last keystrokes.
  useEffect(() => {
    const save = () => session.actions.flushDraft();
    window.addEventListener('pagehide', save);
    return () => window.removeEventListener('pagehide', save);
  }, [session]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && closeTopmost()) {
        e.preventDefault();
        e.stopPropagation();
        return;
      }
      const command = shortcutFor(e);
      if (!command || (transport.shell && command !== 'cancel')) return;
      if (command === 'cancel' && session.store.getState().phase !== 'decoding') return;
      e.preventDefault();
      e.stopPropagation();
      commands.run(command);
    };
    window.addEventListener('keydown', onKey, true);
    const unsubscribers = transport.shell
      ? [transport.shell.onCommand(commands.run), transport.shell.onOpenFile((f) => void session.actions.openFile(f.name, f.bytes))]
      : [];
    return () => { window.removeEventListener('keydown', onKey, true); unsubscribers.forEach((u) => u()); };
  }, [commands, session, transport]);

  const onDrop = (e: React.DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (file) void commands.openFile(file);
  };

  return (
    <SessionContext.Provider value={session}>
      <div className="app-shell" data-testid="app-shell"
        onDragOver={(e) => { e.preventDefault(); setDragging(true); }} onDragLeave={() => setDragging(false)} onDrop={onDrop}>
        <Toolbar commands={commands} />
        <NotificationArea />
        {hasDoc ? <Workspace /> : <Welcome commands={commands} />}
        {dragging && <div className="drop-overlay">Drop to open</div>}
        <DecodeAgainDialog />
        <input ref={fileInput} type="file" hidden accept=".pdf,.png,.jpg,.jpeg,.tif,.tiff,application/pdf,image/*" data-testid="file-input"
          onChange={(e) => { const f = e.target.files?.[0]; e.target.value = ''; if (f) void commands.openFile(f); }} />
      </div>
    </SessionContext.Provider>
  );
}
