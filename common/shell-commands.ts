// The commands Electron's menus send to the focused window, which runs them as its toolbar and shortcuts do:
// one list for main's preload (which lets only these through) and the renderer.
export const SHELL_COMMANDS = ['open', 'export', 'export-pdf', 'close', 'decode', 'cancel', 'toggle-theme', 'toggle-boxes', 'toggle-heatmap',
  'toggle-tokens', 'zoom-in', 'zoom-out', 'zoom-fit', 'next-check', 'previous-check'] as const;

export type ShellCommand = (typeof SHELL_COMMANDS)[number];
