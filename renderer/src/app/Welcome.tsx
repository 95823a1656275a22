// First run: open a file or decode a sample page in one click; recent documents with their saved text, which
// the user can forget here (edited text is never dropped otherwise).
import { useSession, useSessionState } from './session-context';
import type { Commands } from './commands';

export function Welcome({ commands }: { commands: Commands }) {
  const { actions } = useSession();
  const samples = useSessionState((s) => s.samples);
  const recent = useSessionState((s) => s.recent);
  const engine = useSessionState((s) => s.engine);
  const phase = useSessionState((s) => s.phase);
  const first = samples[0];
  return (
    <main className="welcome" data-testid="welcome">
      <div className="welcome-card">
        <h1><span className="brand-mark" aria-hidden>◉</span> Saccade</h1>
        <p className="lede">Turn scans into editable Markdown, and watch the model read: every token streams in as it is drafted and verified, and the page shows where the model looked.</p>
        <div className="welcome-actions">
          <button className="primary large" onClick={() => commands.run('open')} data-testid="open-file">Open a file…</button>
          <button className="large" disabled={!first || phase === 'opening'} onClick={() => first && void actions.openSample(first.name)} data-testid="try-sample">
            Try a sample page
          </button>
        </div>
        <p className="muted">PDF, PNG, JPEG or TIFF — or drop a file anywhere on this window.</p>
        {engine.status === 'unavailable' && <p className="warning" data-testid="engine-unavailable">The engine is unavailable: {engine.message}</p>}
        {samples.length > 1 && (
          <section>
            <h2>Samples</h2>
            <ul className="link-list">
              {samples.map((s) => <li key={s.name}><button className="link" onClick={() => void actions.openSample(s.name)}>{s.title}</button></li>)}
            </ul>
          </section>
        )}
        {recent.length > 0 && (
          <section>
            <h2>Recent</h2>
            <ul className="link-list" data-testid="recent">
              {recent.map((r) => (
                <li key={r.key}>
                  {r.source.kind === 'sample'
                    ? <button className="link" onClick={() => void actions.openSample(r.source.name)}>{r.name}</button>
                    : <button className="link" onClick={() => commands.run('open')} title="Open the file again to continue with its saved text">{r.name}</button>}
                  <span className="muted"> · {r.edited ? 'edited' : 'decoded'}{r.partial ? ' (partial)' : ''} {new Date(r.savedAt).toLocaleString()} · </span>
                  <button className="link" onClick={() => actions.forgetRecent(r.key)} data-testid="forget"
                    title={r.edited ? 'Drop its saved text from this browser, your edits included' : 'Drop its saved decoded text from this browser'}>
                    forget
                  </button>
                </li>
              ))}
            </ul>
          </section>
        )}
      </div>
    </main>
  );
}
