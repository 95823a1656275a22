// Electron shell: one window per document, a supervised engine utility process, and a direct message port
// from each renderer to the engine so main stays off the hot path.
import { app, BrowserWindow, MessageChannelMain, protocol, net, utilityProcess, type UtilityProcess } from 'electron';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

protocol.registerSchemesAsPrivileged([
  { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

const rendererRoot = join(__dirname, '..', 'renderer');
let engine: UtilityProcess | null = null;

function ensureEngine(): UtilityProcess {
  if (engine) return engine;
  const child = utilityProcess.fork(join(__dirname, 'engine-host.js'), [], { serviceName: 'Saccade engine' });
  child.on('exit', () => {
    if (engine === child) engine = null;
    for (const w of BrowserWindow.getAllWindows()) w.webContents.send('engine-exited');
  });
  engine = child;
  return child;
}

function connectWindowToEngine(win: BrowserWindow): void {
  const { port1, port2 } = new MessageChannelMain();
  ensureEngine().postMessage({ kind: 'attach-port' }, [port1]);
  win.webContents.postMessage('engine-port', null, [port2]);
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1440,
    height: 900,
    title: 'Saccade',
    webPreferences: {
      preload: join(__dirname, '..', 'preload', 'preload.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  win.webContents.on('did-finish-load', () => connectWindowToEngine(win));
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  void win.loadURL('app://saccade/index.html');
  return win;
}

void app.whenReady().then(() => {
  protocol.handle('app', (request) => {
    const path = normalize(join(rendererRoot, decodeURIComponent(new URL(request.url).pathname)));
    if (!path.startsWith(rendererRoot + sep)) return new Response('forbidden', { status: 403 });
    return net.fetch(pathToFileURL(path).toString());
  });
  createWindow();
  app.on('activate', () => { if (BrowserWindow.getAllWindows().length === 0) createWindow(); });
});

app.on('window-all-closed', () => {
  engine?.kill();
  if (process.platform !== 'darwin') app.quit();
});
