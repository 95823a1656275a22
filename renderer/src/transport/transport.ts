// The renderer's one way to reach the engine session and the host around it. Two carriers implement it:
// Electron's preload bridge and a WebSocket to the local server; the UI never knows which one it has.
import type { EventBatch, RequestMap, RequestName } from '../../../common/protocol';
import type { ShellCommand } from '../../../common/shell-commands';

export interface Transport {
  readonly kind: 'electron' | 'websocket';
  request<N extends RequestName>(name: N, params: RequestMap[N][0]): Promise<RequestMap[N][1]>;
  /** Batches of this session's events, each naming its document (null: the whole engine, as a crash). */
  onEvents(listener: (batch: EventBatch) => void): () => void;
  /** Native menus, dialogs and files; present only inside Electron. */
  readonly shell?: HostShell;
}

export interface HostShell {
  /** Shows the native save dialog and writes the file; false when the user cancelled. */
  saveMarkdown(suggestedName: string, text: string): Promise<boolean>;
  /** Shows the native save dialog and writes the searchable PDF; false when the user cancelled. */
  savePdf(suggestedName: string, bytes: Uint8Array): Promise<boolean>;
  /** Shows the native open dialog; the chosen file arrives through onOpenFile. */
  showOpenDialog(): void;
  /** Shows the native folder dialog; the folder picked, or null when the user cancelled. */
  chooseModelFolder(): Promise<string | null>;
  onCommand(listener: (command: ShellCommand) => void): () => void;
  onOpenFile(listener: (file: { name: string; bytes: Uint8Array }) => void): () => void;
  /** Tells main which document this window shows (window title, one window per document). */
  documentChanged(name: string | null): void;
  /** The engine backend and model, for Help > About. */
  engineReady(summary: string): void;
}
