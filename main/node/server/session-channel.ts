// One connection to the engine process, whatever carries it (an Electron window's message port, or one
// WebSocket connection multiplexed over the server's IPC channel): a session of its own, its requests checked
// at the edge and answered on it, its events sent on it and on no other.
import { checkRequest, type ServerMessage } from '../../../common/protocol';
import { EngineSession } from '../engine/engine-session';
import type { SharedEngine } from '../engine/shared-engine';

export class SessionChannel {
  private readonly session: EngineSession;

  constructor(engine: SharedEngine, private readonly send: (message: ServerMessage) => void) {
    this.session = new EngineSession(engine, (batch) => send({ kind: 'events', ...batch }));
  }

  async receive(raw: unknown): Promise<void> {
    const checked = checkRequest(raw);
    if (!checked.ok) {
      const id = typeof (raw as { id?: unknown })?.id === 'number' ? (raw as { id: number }).id : -1;
      this.send({ kind: 'response', id, ok: false, error: `rejected: ${checked.reason}` });
      return;
    }
    const { id } = checked.value;
    try {
      this.send({ kind: 'response', id, ok: true, result: await this.session.handle(checked.value) });
    } catch (err) {
      this.send({ kind: 'response', id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** The carrier closed: the session's decode stops and its documents are released. */
  end(): void {
    this.session.end();
  }
}
