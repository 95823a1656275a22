// The user's commands, shared by the toolbar, keyboard shortcuts, Electron menus and drag and drop.
import { MAX_DOCUMENT_BYTES } from '../../../common/protocol';
import type { Session } from '../state/session-store';
import { editorHandle } from '../editor/editor-handle';
import { exportName, searchablePdfName } from '../state/markdown-layout';
import { withoutTopic } from '../state/notices';
import { ZOOM_STEP } from '../document/zoom';
import type { ShellCommand } from '../../../common/shell-commands';
import type { Transport } from '../transport/transport';

export function createCommands(session: Session, transport: Transport, pickFile: () => void) {
  const { store, actions } = session;

  const openFile = async (file: File) => {
    // Refused before its bytes are read; the browser server would refuse the upload too (main/node/server.ts).
    if (file.size > MAX_DOCUMENT_BYTES) {
      actions.notify('error', `${file.name} is ${(file.size / 2 ** 20).toFixed(0)} MB; the largest file Saccade opens is ${MAX_DOCUMENT_BYTES / 2 ** 20} MB.`);
      return;
    }
    await actions.openFile(file.name, new Uint8Array(await file.arrayBuffer()));
  };

  const exportMarkdown = async () => {
    const { doc } = store.getState();
    const text = editorHandle.current?.getText();
    if (!doc || text === undefined) return;
    const name = exportName(doc.info.name);
    const partial = store.getState().partial ? ' It holds partial text: its decode did not finish.' : '';
    if (transport.shell) {
      if (await transport.shell.saveMarkdown(name, text)) actions.notify('info', `Exported ${name}.${partial}`);
      return;
    }
    download(new Blob([text], { type: 'text/markdown;charset=utf-8' }), name);
    // The browser saves it where its downloads go, without telling the page: say what was handed over.
    actions.notify('info', `Exported ${name} (${text.length.toLocaleString()} characters) to your browser's downloads.${partial}`);
  };

  let makingPdf = false;
  /** The document's pages with the editor's text as an invisible, searchable layer over them. */
  const exportSearchablePdf = async () => {
    const { doc } = store.getState();
    const text = editorHandle.current?.getText();
    if (!doc || text === undefined || makingPdf) return;
    const name = searchablePdfName(doc.info.name);
    const partial = store.getState().partial ? ' Its text is partial: its decode did not finish.' : '';
    makingPdf = true;
    actions.notify('info', `Making ${name}…`);
    try {
      const bytes = await actions.searchablePdf(text);
      if (transport.shell) {
        const saved = await transport.shell.savePdf(name, bytes);
        if (saved) actions.notify('info', `Exported ${name}.${partial}`);
        else store.setState((s) => ({ notices: withoutTopic(s.notices, 'action') }));
        return;
      }
      download(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }), name);
      actions.notify('info', `Exported ${name} (${(bytes.length / 2 ** 20).toFixed(1)} MB) to your browser's downloads.${partial}`);
    } catch (err) {
      actions.notify('error', `Could not export ${name}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      makingPdf = false;
    }
  };

  const run = (command: ShellCommand) => {
    const s = store.getState();
    switch (command) {
      case 'open': return pickFile();
      case 'export': return void exportMarkdown();
      case 'export-pdf': return void exportSearchablePdf();
      case 'close': return void actions.closeDocument();
      case 'decode': return void actions.decode();
      case 'cancel': return void actions.cancel();
      case 'toggle-theme': return actions.setTheme(s.theme === 'dark' ? 'light' : 'dark');
      case 'toggle-boxes': return actions.toggleOverlay('boxes');
      case 'toggle-heatmap': return actions.toggleOverlay('heatmap');
      case 'toggle-tokens': return actions.toggleOverlay('tokens');
      case 'zoom-in': return actions.zoomBy(ZOOM_STEP);
      case 'zoom-out': return actions.zoomBy(1 / ZOOM_STEP);
      case 'zoom-fit': return actions.setZoom('fit');
      case 'next-check': return editorHandle.current?.revealCheck(1);
      case 'previous-check': return editorHandle.current?.revealCheck(-1);
    }
  };

  return { openFile, exportMarkdown, exportSearchablePdf, run };
}

/** Hands a file to the browser's downloads. */
function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export type Commands = ReturnType<typeof createCommands>;

/** Keyboard shortcuts of the browser build (Electron's menu accelerators carry the same keys). */
export function shortcutFor(e: KeyboardEvent): ShellCommand | null {
  const mod = e.ctrlKey || e.metaKey;
  if (e.key === 'Escape' && !mod) return 'cancel';
  if (e.key === 'F8' && !mod && !e.altKey) return e.shiftKey ? 'previous-check' : 'next-check';
  if (!mod) return null;
  const key = e.key.toLowerCase();
  if (key === 'o' && !e.shiftKey) return 'open';
  if (key === 's' || (key === 'e' && e.shiftKey)) return 'export';
  if (key === 'enter') return 'decode';
  if (key === 'w' && e.shiftKey) return 'close';
  if (key === 'l' && e.shiftKey) return 'toggle-theme';
  if (key === 'h' && e.shiftKey) return 'toggle-heatmap';
  if (key === 'b' && e.shiftKey) return 'toggle-boxes';
  if (key === '=' || key === '+') return 'zoom-in';
  if (key === '-') return 'zoom-out';
  if (key === '0') return 'zoom-fit';
  return null;
}
