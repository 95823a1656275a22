// Shown while the document's text is what a decode that did not finish left, so it is never taken for the
// whole document.
import { useSession, useSessionState } from './session-context';

export function PartialBanner() {
  const { actions } = useSession();
  const partial = useSessionState((s) => s.partial && s.phase !== 'decoding' && s.phase !== 'opening');
  if (!partial) return null;
  return (
    <div className="banner error" role="status" data-testid="partial-banner">
      <span>This text is partial: its decode did not finish, so words, lines or pages are missing.</span>
      <button className="small primary" onClick={() => void actions.decode()}>Decode again</button>
    </div>
  );
}
