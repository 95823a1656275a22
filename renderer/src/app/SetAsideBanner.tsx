// Shown while the open document keeps an edited text that another text replaced (decoding again does that):
// the user restores it or discards it, and nothing happens to it otherwise.
import { useSession, useSessionState } from './session-context';

export function SetAsideBanner() {
  const { actions } = useSession();
  const setAside = useSessionState((s) => s.setAside);
  const busy = useSessionState((s) => s.phase === 'decoding' || s.phase === 'opening');
  const newest = setAside[0];
  if (!newest) return null;
  const older = setAside.length - 1;
  return (
    <div className="banner info" role="status" data-testid="set-aside">
      <span>
        Your edited text from {new Date(newest.savedAt).toLocaleString()} is set aside{older > 0 ? `, with ${older} older ${older === 1 ? 'one' : 'ones'}` : ''}:
        the editor shows the text that replaced it.
      </span>
      <button className="small primary" disabled={busy} onClick={actions.restoreSetAside} data-testid="restore-edit"
        title={busy ? 'Available once decoding ends' : 'Put the edited text back in the editor (the text there is set aside in turn if you edited it)'}>
        Restore edited text
      </button>
      <button className="small" onClick={actions.discardSetAside} data-testid="discard-edit">Discard it</button>
    </div>
  );
}
