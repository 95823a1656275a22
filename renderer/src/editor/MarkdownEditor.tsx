// The Markdown editor. It follows the token stream outside React (a store subscription feeding Monaco once
// per frame), links the text under the pointer or selection to its tokens (for the page heatmap), and
// reports every change of the text to the session, telling the user's own edits from the decode's, so the
// draft knows when it holds edits. A saved text with its decode kept is shown by replaying the decode and
// editing its text into the saved one word by word, so the words the user did not change keep their tokens'
// tints, marks and heatmaps; the corrections merged into a new decode are applied the same way. It also
// walks the words to check (F8), shows what a picked round wrote, and goes to the page the user chose.
import { useEffect, useRef } from 'react';
import { useSession } from '../app/session-context';
import { editorHandle } from './editor-handle';
import { monaco } from './monaco';
import { StreamMirror } from './stream-mirror';
import { textEdits } from '../state/text-merge';
import type { SessionState } from '../state/session-store';

/**
 * The token stream reaches the editor at most this often. Monaco re-measures a line whenever its decorated
 * spans change, and a region's text is one long wrapped line, so per-frame appends cost more than they show.
 */
const STREAM_INTERVAL_MS = 120;

export function MarkdownEditor() {
  const { store, actions } = useSession();
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const state = store.getState();
    const model = monaco.editor.createModel('', 'markdown');
    const editor = monaco.editor.create(host.current!, {
      model,
      theme: state.theme === 'dark' ? 'saccade-dark' : 'saccade-light',
      automaticLayout: true,
      minimap: { enabled: false },
      wordWrap: 'on',
      fontSize: 14,
      lineHeight: 22,
      fontFamily: "'JetBrains Mono', 'DejaVu Sans Mono', 'Menlo', monospace",
      renderLineHighlight: 'line',
      scrollBeyondLastLine: false,
      padding: { top: 12, bottom: 12 },
      lineNumbersMinChars: 3,
      glyphMargin: false,
      folding: false,
      unicodeHighlight: { ambiguousCharacters: false },
      overviewRulerBorder: false,
      guides: { indentation: false },
      occurrencesHighlight: 'off',
      selectionHighlight: false,
      matchBrackets: 'never',
      renderWhitespace: 'none',
    });
    const mirror = new StreamMirror(model);
    // Set while the mirror writes the decode (or a saved text) into the model: any other change is the user's.
    let mirroring = false;
    const mirrored = (write: () => void) => {
      mirroring = true;
      try {
        write();
      } finally {
        mirroring = false;
      }
    };
    let syncTimer: ReturnType<typeof setTimeout> | null = null;
    const countToCheck = () => {
      const count = mirror.wordsToCheck().length;
      const { toCheck } = store.getState();
      if (count !== toCheck.count) store.setState({ toCheck: { count, at: null, word: null } });
    };
    const syncNow = () => {
      if (syncTimer) clearTimeout(syncTimer);
      syncTimer = null;
      mirrored(() => mirror.sync());
      countToCheck();
    };
    const scheduleSync = () => { syncTimer ??= setTimeout(syncNow, STREAM_INTERVAL_MS); };

    /** Turns the editor's text, when it is `from`, into `to` by word edits (else replaces it whole). */
    const settle = (from: string, to: string) => {
      mirrored(() => {
        if (model.getValue() !== from) {
          model.setValue(to);
          return;
        }
        model.applyEdits(textEdits(from, to).map((e) => {
          const start = model.getPositionAt(e.start);
          const end = model.getPositionAt(e.end);
          return { range: { startLineNumber: start.lineNumber, startColumn: start.column, endLineNumber: end.lineNumber, endColumn: end.column }, text: e.text };
        }));
      });
      // A word the user corrected is no longer one to check.
      countToCheck();
    };

    const load = (s: SessionState) => {
      const draft = s.doc?.draft;
      if (s.run && draft && draft.decoded !== null) {
        mirrored(() => mirror.reset(s.run, ''));
        syncNow();
        settle(draft.decoded, draft.text);
      } else {
        mirrored(() => mirror.reset(s.run, draft?.text ?? ''));
        syncNow();
      }
    };

    let lastDoc = state.doc;
    let lastRun = state.run;
    load(state);

    // Follow the store without re-rendering: documents and runs reset the text, revisions stream tokens in.
    const unsubscribe = store.subscribe((s, prev) => {
      if (s.doc?.key !== lastDoc?.key || (s.doc?.draft && s.doc.draft !== lastDoc?.draft)) {
        lastDoc = s.doc;
        lastRun = s.run;
        load(s);
      } else if (s.run !== lastRun) {
        lastRun = s.run;
        lastDoc = s.doc;
        if (s.run && s.run !== mirror.currentRun) mirrored(() => mirror.reset(s.run, ''));
      }
      if (s.run !== prev.run || (s.phase !== prev.phase && s.phase !== 'decoding')) syncNow();
      else if (s.revision !== prev.revision) scheduleSync();
      if (s.settle && s.settle !== prev.settle) {
        syncNow();
        settle(s.settle.decoded, s.settle.text);
      }
      if (s.spotlight !== prev.spotlight) showSpotlight(s);
      else if (s.page !== prev.page && s.run) revealPage(s);
      if (s.theme !== prev.theme) monaco.editor.setTheme(s.theme === 'dark' ? 'saccade-dark' : 'saccade-light');
    });

    let spotlightDecorations: string[] = [];
    const showSpotlight = (s: SessionState) => {
      const ranges = s.spotlight ? mirror.tokenRanges(s.spotlight.tokens) : [];
      spotlightDecorations = model.deltaDecorations(spotlightDecorations, ranges.map((range) => ({ range, options: { inlineClassName: 'tok-spotlight' } })));
      if (ranges[0]) editor.revealRangeInCenterIfOutsideViewport(ranges[0]);
    };
    /** The chosen page's text, from its first region in reading order that is in the text. */
    const revealPage = (s: SessionState) => {
      for (const region of s.run!.pageRegions(s.page)) {
        const range = mirror.regionRange(region.id);
        if (range) {
          editor.revealRangeNearTop(range);
          return;
        }
      }
    };

    let countTimer: ReturnType<typeof setTimeout> | null = null;
    const textListeners = new Set<() => void>();
    const contentListener = model.onDidChangeContent(() => {
      actions.editorChanged(model.getValue(), !mirroring);
      for (const listener of textListeners) listener();
      if (!mirroring) countTimer ??= setTimeout(() => { countTimer = null; countToCheck(); }, 300);
    });

    const pointAt = (position: monaco.IPosition | null | undefined) => {
      if (!position) return [];
      return mirror.tokensIn({ startLineNumber: position.lineNumber, startColumn: position.column, endLineNumber: position.lineNumber, endColumn: position.column + 1 });
    };
    const selectionTokens = () => {
      const sel = editor.getSelection();
      return sel && !sel.isEmpty() ? mirror.tokensIn(sel) : null;
    };
    const mouseMove = editor.onMouseMove((e) => {
      const tokens = pointAt(e.target.position);
      const focus = tokens.length ? tokens.slice(0, 1) : selectionTokens();
      const current = store.getState().focus;
      if (JSON.stringify(current) !== JSON.stringify(focus)) store.setState({ focus });
    });
    const mouseLeave = editor.onMouseLeave(() => store.setState({ focus: selectionTokens() }));
    const selection = editor.onDidChangeCursorSelection((e) => {
      // Only the user's own moves pick what they point at: text streaming in or edited by the app moves the
      // cursor too.
      if (e.reason !== monaco.editor.CursorChangeReason.Explicit) return;
      const focus = selectionTokens();
      const at = e.selection.getPosition();
      const token = pointAt(at)[0] ?? pointAt({ lineNumber: at.lineNumber, column: Math.max(1, at.column - 1) })[0];
      const s = store.getState();
      const patch: Partial<typeof s> = { focus };
      if (token && s.run) {
        const t = s.run.token(token);
        const index = t ? s.run.timeline.findIndex((r) => r.regionId === token.regionId && r.event.round === t.round) : -1;
        if (index >= 0) patch.selectedRound = index;
      }
      const region = mirror.regionAt({ startLineNumber: at.lineNumber, startColumn: at.column, endLineNumber: at.lineNumber, endColumn: at.column });
      if (region) patch.selectedRegion = region;
      store.setState(patch);
    });

    editorHandle.current = {
      getText: () => model.getValue(),
      revealRegion: (regionId) => {
        const range = mirror.regionRange(regionId);
        if (!range) return;
        editor.revealRangeInCenter(range);
        editor.setSelection(range);
        editor.focus();
      },
      focus: () => editor.focus(),
      select: (start, end) => {
        const s = model.getPositionAt(start);
        const e = model.getPositionAt(end);
        const range = { startLineNumber: s.lineNumber, startColumn: s.column, endLineNumber: e.lineNumber, endColumn: e.column };
        editor.setSelection(range);
        editor.revealRangeInCenterIfOutsideViewport(range);
        editor.focus();
        // What the selection was read from is shown on its page, as for a word to check.
        const tokens = mirror.tokensIn(range);
        if (tokens.length > 0) actions.spotlight(tokens);
      },
      onTextChange: (listener) => {
        textListeners.add(listener);
        return () => textListeners.delete(listener);
      },
      revealCheck: (direction) => {
        const words = mirror.wordsToCheck();
        if (words.length === 0) return;
        const selection = editor.getSelection();
        const at = selection ? model.getOffsetAt(selection.getStartPosition()) : 0;
        const index = direction === 1
          ? Math.max(0, words.findIndex((w) => w.start > at))
          : (words.findLastIndex((w) => w.start < at) + words.length) % words.length;
        const word = words[index]!;
        editor.setSelection(word.range);
        editor.revealRangeInCenterIfOutsideViewport(word.range);
        editor.focus();
        store.setState({ toCheck: { count: words.length, at: index + 1, word: model.getValueInRange(word.range) } });
        actions.spotlight(mirror.tokensIn(word.range));
      },
    };

    return () => {
      if (syncTimer) clearTimeout(syncTimer);
      if (countTimer) clearTimeout(countTimer);
      actions.flushDraft();
      editorHandle.current = null;
      unsubscribe();
      contentListener.dispose();
      mouseMove.dispose();
      mouseLeave.dispose();
      selection.dispose();
      editor.dispose();
      model.dispose();
    };
  }, [store, actions]);

  return <div className="markdown-editor" data-testid="editor" ref={host} />;
}
