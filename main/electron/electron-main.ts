// Electron shell: one window per document, a supervised engine utility process with a direct message port
// per window (main stays off the hot path), native menus and dialogs, and secure defaults: context
// isolation, sandbox, no Node in pages, a strict CSP, pages served from app:// only, no windows, navigation
// or web permissions beyond the app's own pages, and checked IPC.
import { app, BrowserWindow, dialog, ipcMain, Menu, net, protocol, session, type FileFilter, type IpcMainEvent, type IpcMainInvokeEvent } from 'electron';
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readInput } from '../node/inputs/input-file';
import { appFile } from './app-files';
import { buildMenu } from './app-menu';
import { denyWebPermissions, restrictContents } from './contents-policy';
import { EngineSupervisor } from './engine-supervisor';
import { APP_ORIGIN, checkRendererMessage, type RendererChannel } from './ipc-channels';
import { addRecentFile, clearRecentFiles, recentFiles } from './recent-files';

const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
  "font-src 'self' data:", "worker-src 'self' blob:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');
const DOCUMENT_FILTERS = [{ name: 'Documents', extensions: ['pdf', 'png', 'jpg', 'jpeg', 'tif', 'tiff'] }];

protocol.registerSchemesAsPrivileged([
  { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

const rendererRoot = join(__dirname, '..', 'renderer');
const engine = new EngineSupervisor();
/** The document each window shows (null: the welcome view), for one window per document. */
const documents = new Map<BrowserWindow, string | null>();
let engineSummary = 'the engine has not reported yet';

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    title: 'Saccade',
    backgroundColor: '#0f1115',
    webPreferences: {
      preload: join(__dirname, '..', 'preload', 'preload.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  documents.set(win, null);
  win.on('closed', () => documents.delete(win));
  // Each load gets a fresh port: a reload must not keep talking to a port whose page is gone.
  win.webContents.on('did-finish-load', () => engine.attach(win));
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}

/** A window with no document, or a new one: opening a file never replaces another document's window. */
function windowForNewDocument(): Promise<BrowserWindow> {
  const focused = BrowserWindow.getFocusedWindow();
  if (focused && documents.get(focused) === null) return Promise.resolve(focused);
  const empty = [...documents].find(([, doc]) => doc === null)?.[0];
  if (empty) return Promise.resolve(empty);
  const win = createWindow();
  return new Promise((resolve) => win.webContents.once('did-finish-load', () => resolve(win)));
}

async function openPath(path: string): Promise<void> {
  try {
    const bytes = readInput(path);
    const win = await windowForNewDocument();
    win.webContents.send('open-file', { name: basename(path), bytes });
    win.focus();
    addRecentFile(path);
    refreshMenu();
  } catch (err) {
    dialog.showErrorBox('Saccade', `Could not open ${basename(path)}: ${(err as Error).message}`);
  }
}

async function showOpenDialog(): Promise<void> {
  const parent = BrowserWindow.getFocusedWindow();
  const options = { properties: ['openFile' as const], filters: DOCUMENT_FILTERS };
  const result = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
  if (!result.canceled && result.filePaths[0]) await openPath(result.filePaths[0]);
}

function showAbout(): void {
  const parent = BrowserWindow.getFocusedWindow();
  const options = {
    type: 'info' as const,
    title: 'About Saccade',
    message: `Saccade ${app.getVersion()}`,
    detail: `Engine: ${engineSummary}\nElectron ${process.versions.electron} · Chromium ${process.versions.chrome} · Node ${process.versions.node}`,
  };
  void (parent ? dialog.showMessageBox(parent, options) : dialog.showMessageBox(options));
}

function refreshMenu(): void {
  Menu.setApplicationMenu(buildMenu({
    open: () => void showOpenDialog(),
    openPath: (p) => void openPath(p),
    clearRecent: () => { clearRecentFiles(); refreshMenu(); },
    command: (name) => BrowserWindow.getFocusedWindow()?.webContents.send('menu-command', name),
    about: showAbout,
    recent: recentFiles,
  }));
}

/** Registers a handler for a renderer channel; messages from other frames or with bad payloads are dropped. */
function onRenderer<C extends RendererChannel>(channel: C, handler: (event: IpcMainEvent, payload: never) => void): void {
  ipcMain.on(channel, (event, payload: unknown) => {
    const problem = checkRendererMessage(channel, event, payload);
    if (problem) {
      console.warn(`saccade: ignored ${problem}`);
      return;
    }
    handler(event, payload as never);
  });
}

function registerIpc(): void {
  onRenderer('show-open-dialog', () => void showOpenDialog());
  onRenderer('document-changed', (event, p: { name: string | null }) => {
    const win = BrowserWindow.fromWebContents(event.sender);
    if (!win) return;
    documents.set(win, p.name);
    win.setTitle(p.name ? `${p.name} — Saccade` : 'Saccade');
  });
  onRenderer('engine-summary', (_event, p: { summary: string }) => { engineSummary = p.summary; });
  ipcMain.handle('choose-model-folder', async (event, payload: unknown) => {
    const problem = checkRendererMessage('choose-model-folder', event, payload);
    if (problem) throw new Error(problem);
    const win = BrowserWindow.fromWebContents(event.sender);
    const options = { title: 'Choose a model folder', properties: ['openDirectory' as const] };
    const result = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
    return result.canceled ? null : result.filePaths[0] ?? null;
  });
  ipcMain.handle('save-markdown', async (event, payload: unknown) => {
    const problem = checkRendererMessage('save-markdown', event, payload);
    if (problem) throw new Error(problem);
    const { suggestedName, text } = payload as { suggestedName: string; text: string };
    return saveThroughDialog(event, suggestedName, { name: 'Markdown', extensions: ['md'] }, text);
  });
  ipcMain.handle('save-pdf', async (event, payload: unknown) => {
    const problem = checkRendererMessage('save-pdf', event, payload);
    if (problem) throw new Error(problem);
    const { suggestedName, bytes } = payload as { suggestedName: string; bytes: Uint8Array };
    return saveThroughDialog(event, suggestedName, { name: 'PDF', extensions: ['pdf'] }, bytes);
  });
}

/** Shows the native save dialog over the sender's window and writes `data`; false when the user cancelled. */
async function saveThroughDialog(event: IpcMainInvokeEvent, suggestedName: string, filter: FileFilter, data: string | Uint8Array): Promise<boolean> {
  const win = BrowserWindow.fromWebContents(event.sender);
  const options = { defaultPath: basename(suggestedName), filters: [filter] };
  const result = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
  if (result.canceled || !result.filePath) return false;
  await writeFile(result.filePath, data);
  return true;
}

// Before any window exists, so no web contents is ever without the policy.
app.on('web-contents-created', (_event, contents) => restrictContents(contents));

void app.whenReady().then(() => {
  denyWebPermissions(session.defaultSession);
  protocol.handle('app', async (request) => {
    const file = appFile(rendererRoot, request.url);
    if ('status' in file) return new Response(null, { status: file.status });
    let response: Response;
    try {
      response = await net.fetch(pathToFileURL(file.path).toString());
    } catch {
      return new Response(null, { status: 404 });
    }
    const headers = new Headers(response.headers);
    headers.set('content-security-policy', CSP);
    headers.set('x-content-type-options', 'nosniff');
    return new Response(response.body, { status: response.status, headers });
  });
  registerIpc();
  refreshMenu();
  createWindow();
  app.on('activate', () => { if (BrowserWindow.getAllWindows().length === 0) createWindow(); });
});

app.on('open-file', (event, path) => {
  event.preventDefault();
  void app.whenReady().then(() => openPath(path));
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') {
    engine.stop();
    app.quit();
  }
});

app.on('before-quit', () => engine.stop());
