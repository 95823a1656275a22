// Asked before decoding over a text the user edited: what happens to the edits is said before it happens.
import { useEffect, useRef } from 'react';
import { useSession, useSessionState } from './session-context';
import { useEscape } from './use-escape';

export function DecodeAgainDialog() {
  const open = useSessionState((s) => s.confirmingDecode);
  return open ? <OpenDialog /> : null;
}

function OpenDialog() {
  const { actions } = useSession();
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  useEscape(actions.dismissDecodeConfirm);
  return (
    <div className="dialog-backdrop">
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="decode-again-title" data-testid="decode-again-dialog">
        <h2 id="decode-again-title">Decode again over your edits?</h2>
        <p>
          The new text keeps your corrections: words you changed stay as you wrote them, also where the new decode
          reads them differently. Your edited text as it is now is set aside as well, and can be restored.
        </p>
        <div className="dialog-actions">
          <button onClick={actions.dismissDecodeConfirm} data-testid="decode-again-cancel">Keep my text</button>
          <button className="primary" ref={confirm} onClick={() => void actions.decode(true)} data-testid="decode-again-confirm">Decode again</button>
        </div>
      </div>
    </div>
  );
}
