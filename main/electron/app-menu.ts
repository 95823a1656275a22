// The application menu. Commands that act on a document go to the focused window as 'menu-command'
// messages; the renderer runs them exactly as its toolbar and shortcuts do.
import { Menu, type MenuItemConstructorOptions } from 'electron';
import { basename } from 'node:path';

export interface MenuActions {
  open(): void;
  openPath(path: string): void;
  clearRecent(): void;
  command(name: string): void;
  about(): void;
  recent(): string[];
}

export function buildMenu(a: MenuActions): Menu {
  const send = (name: string) => () => a.command(name);
  const recent = a.recent();
  const template: MenuItemConstructorOptions[] = [
    {
      label: 'File',
      submenu: [
        { label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => a.open() },
        {
          label: 'Open Recent',
          submenu: [
            ...recent.map((p) => ({ label: basename(p), toolTip: p, click: () => a.openPath(p) })),
            ...(recent.length ? [{ type: 'separator' as const }] : []),
            { label: 'Clear Recent', enabled: recent.length > 0, click: () => a.clearRecent() },
          ],
        },
        { type: 'separator' },
        { label: 'Export Markdown…', accelerator: 'CmdOrCtrl+S', click: send('export') },
        { label: 'Export Searchable PDF…', click: send('export-pdf') },
        { type: 'separator' },
        { label: 'Close Document', accelerator: 'CmdOrCtrl+Shift+W', click: send('close') },
        { role: 'close' },
        { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'Decode',
      submenu: [
        { label: 'Decode Document', accelerator: 'CmdOrCtrl+Enter', click: send('decode') },
        { label: 'Cancel Decoding', click: send('cancel') },
        { type: 'separator' },
        { label: 'Next Word to Check', accelerator: 'F8', click: send('next-check') },
        { label: 'Previous Word to Check', accelerator: 'Shift+F8', click: send('previous-check') },
      ],
    },
    {
      label: 'View',
      submenu: [
        { label: 'Region Boxes', accelerator: 'CmdOrCtrl+Shift+B', click: send('toggle-boxes') },
        { label: 'Fixation Heatmap', accelerator: 'CmdOrCtrl+Shift+H', click: send('toggle-heatmap') },
        { label: 'Token Fixations', click: send('toggle-tokens') },
        { type: 'separator' },
        { label: 'Toggle Dark/Light Theme', accelerator: 'CmdOrCtrl+Shift+L', click: send('toggle-theme') },
        { type: 'separator' },
        { label: 'Zoom Page In', accelerator: 'CmdOrCtrl+=', click: send('zoom-in') },
        { label: 'Zoom Page Out', accelerator: 'CmdOrCtrl+-', click: send('zoom-out') },
        { label: 'Fit Page', accelerator: 'CmdOrCtrl+0', click: send('zoom-fit') },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { label: 'Help', submenu: [{ label: 'About Saccade', click: () => a.about() }] },
  ];
  return Menu.buildFromTemplate(template);
}
