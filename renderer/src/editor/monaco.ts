// Monaco, bundled locally with its worker (no CDN): the editor core, the editing features a Markdown editor
// needs, and the Markdown grammar. Importing the whole `monaco-editor` would pull in every language service.
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/features/find/register';
import 'monaco-editor/features/clipboard/register';
import 'monaco-editor/features/contextmenu/register';
import 'monaco-editor/features/wordOperations/register';
import 'monaco-editor/features/linesOperations/register';
import 'monaco-editor/features/multicursor/register';
import 'monaco-editor/features/cursorUndo/register';
import 'monaco-editor/features/bracketMatching/register';
import 'monaco-editor/features/hover/register';
import 'monaco-editor/languages/definitions/markdown/register';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';

(self as unknown as { MonacoEnvironment: monaco.Environment }).MonacoEnvironment = {
  getWorker: () => new EditorWorker(),
};

monaco.editor.defineTheme('saccade-dark', {
  base: 'vs-dark', inherit: true, rules: [],
  colors: { 'editor.background': '#15181e', 'editor.lineHighlightBackground': '#1d2129', 'editorGutter.background': '#15181e' },
});
monaco.editor.defineTheme('saccade-light', {
  base: 'vs', inherit: true, rules: [],
  colors: { 'editor.background': '#fcfcfd', 'editor.lineHighlightBackground': '#f1f3f6' },
});

export { monaco };
