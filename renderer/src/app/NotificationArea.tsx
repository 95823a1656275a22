// The one place the app speaks up, above the workspace and never taller than a few lines (it scrolls past
// them): the states that ask for an action (the engine stopped, a partial text, an edited text set aside),
// then the notices about the open document, newest first, each dismissable.
import { useSession, useSessionState } from './session-context';
import { PartialBanner } from './PartialBanner';
import { SetAsideBanner } from './SetAsideBanner';

export function NotificationArea() {
  const { actions } = useSession();
  const notices = useSessionState((s) => s.notices);
  const crash = useSessionState((s) => (s.phase === 'crashed' ? s.crashReason : null));
  return (
    <div className="notification-area" data-testid="notification-area">
      {crash !== null && (
        <div className="banner error" role="alert" data-testid="crash-banner">
          <span>The engine stopped ({crash}). Your text is kept.</span>
          <button className="small primary" onClick={() => void actions.restartAfterCrash()} data-testid="restart">Restart decoding</button>
        </div>
      )}
      <PartialBanner />
      <SetAsideBanner />
      {notices.map((n) => (
        <div key={n.id} className={`banner ${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'} data-testid={n.topic === 'action' ? 'notice' : `${n.topic}-notice`}>
          <span>{n.text}</span>
          <button className="icon" onClick={() => actions.dismissNotice(n.id)} aria-label="Dismiss">×</button>
        </div>
      ))}
    </div>
  );
}
