// How many words the model was unsure of are in the text, and the way through them (F8 / Shift+F8).
import { useSessionState } from '../app/session-context';
import { editorHandle } from './editor-handle';

export function CheckNavigator() {
  const { count, at, word } = useSessionState((s) => s.toCheck);
  if (count === 0) return null;
  return (
    <span className="check-nav" data-testid="to-check" data-count={count}>
      <button className="icon" title="Previous word to check (Shift+F8)" aria-label="Previous word to check" onClick={() => editorHandle.current?.revealCheck(-1)}>‹</button>
      {/* Announced as it changes, with the word F8 went to, for a reader who does not see the selection. */}
      <span aria-live="polite" data-testid="to-check-at" title={word !== null ? `Checking “${word}”` : undefined} data-word={word ?? undefined}>
        {at !== null ? `${at} of ${count} to check` : `${count} to check`}
      </span>
      <button className="icon" title="Next word to check (F8)" aria-label="Next word to check" onClick={() => editorHandle.current?.revealCheck(1)}>›</button>
    </span>
  );
}
