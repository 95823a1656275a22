// The app's state and the actions that drive the engine session. Event batches from the transport are
// queued and applied once per animation frame (one store update per frame, never one per token); views that
// follow the token stream subscribe to the store directly instead of re-rendering React on every change.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EngineInfo } from '../../../common/engine-types';
import { DECODE_MODES } from '../../../common/engine-types';
import { exportEvents } from '../../../common/export-events';
import { modeUnavailable, type Box, type DocumentInfo, type EventBatch, type ModelInfo, type SampleInfo } from '../../../common/protocol';
import type { Transport } from '../transport/transport';
import { base64ToBytes, bytesToBase64 } from './base64';
import { DecodeRun, type TokenRef } from './decode-run';
import { loadSettings, saveSettings, toDecodeOptions, type DecodeSettings } from './decode-settings';
import { DraftKeeper } from './draft-keeper';
import { documentKey, forgetDraft, listRecent, loadDraft, type Draft, type DocumentSource, type RecentEntry, type SetAsideText } from './drafts';
import type { KeyValueStore } from './persisted';
import { readJson, writeJson } from './persisted';
import { withNotice, withoutTopic, type Notice, type NoticeTopic } from './notices';
import { keptAidsNotice, savedAidsNotice } from './checking-aids-notice';
import type { RunStore } from './run-store';
import { dropLegacyRuns, keepRunsOf, loadRun, saveRun } from './saved-runs';

export type Phase = 'idle' | 'opening' | 'decoding' | 'done' | 'cancelled' | 'failed' | 'crashed';
export type Theme = 'dark' | 'light';

export interface OpenedDoc {
  info: DocumentInfo;
  source: DocumentSource;
  bytes: Uint8Array;
  key: string;
  /**
   * The saved text the editor starts from: the draft found when the document was opened, a set-aside text
   * the user restored, or the text from before a decode that stopped early; null while a decode writes.
   * With a run beside it, the editor replays the run and corrects its text into the draft's.
   */
  draft: Draft | null;
}

/** The editor's text, once a decode finished, made into `text` by word edits that keep the tokens' links. */
export interface Settle {
  decoded: string;
  text: string;
}

/** Tokens shown together in the editor and on the page: a round picked in the timeline, a word to check. */
export interface Spotlight {
  tokens: TokenRef[];
  page: number;
  /** Where they were read, in page pixels. */
  box: Box;
}

export interface Overlays {
  boxes: boolean;
  heatmap: boolean;
  tokens: boolean;
}

export interface SessionState {
  engine: { status: 'connecting' | 'ready' | 'unavailable'; info?: EngineInfo; model?: ModelInfo; message?: string };
  vocab: string[];
  /** The model picker: folders loaded before (most recent first), a switch under way, why the last one failed. */
  models: { recent: string[]; switching: boolean; error: string | null; nativeDialog: boolean };
  samples: SampleInfo[];
  recent: RecentEntry[];
  doc: OpenedDoc | null;
  run: DecodeRun | null;
  /** Bumped once per applied batch of events: what token-following views subscribe to. */
  revision: number;
  phase: Phase;
  /** What the user is told, newest first (notices.ts). */
  notices: Notice[];
  /** Edited texts of the open document that decoding again replaced, newest first: restorable. */
  setAside: SetAsideText[];
  /** The document's text is what a decode that did not finish left. */
  partial: boolean;
  /** "Decode again" waits for the user to confirm, the text holding their edits. */
  confirmingDecode: boolean;
  /** The user's corrections merged into the decode that just finished, for the editor to apply. */
  settle: Settle | null;
  crashReason: string | null;
  settings: DecodeSettings;
  /** Tokens the user points at in the editor (hover or selection); null follows the live token. */
  focus: TokenRef[] | null;
  /** Index into run.timeline of the round picked (clicked, or the cursor's token's); null follows the newest. */
  selectedRound: number | null;
  /** The round under the pointer in the timeline, shown in detail over the picked one. */
  hoveredRound: number | null;
  spotlight: Spotlight | null;
  /** Words to check in the editor's text; the one last jumped to (its place, from 1, and its text), if any. */
  toCheck: { count: number; at: number | null; word: string | null };
  selectedRegion: string | null;
  page: number;
  zoom: number | 'fit';
  /** The scale that fits the page in its view, as the document pane last measured it: what zooming from 'fit' starts at. */
  fitScale: number;
  theme: Theme;
  overlays: Overlays;
  /** The engine restarted since the document was opened in it, so it must be opened again before decoding. */
  engineLostDocument: boolean;
}

export interface SessionActions {
  connect(): Promise<void>;
  openSample(name: string): Promise<void>;
  openFile(name: string, bytes: Uint8Array): Promise<void>;
  /** Decodes the document; over an edited text, only once the user confirmed (`confirmed`). */
  decode(confirmed?: boolean): Promise<void>;
  dismissDecodeConfirm(): void;
  cancel(): Promise<void>;
  /** Loads another model folder (null: the embedded one) in the engine; a failure keeps the current model. */
  switchModel(dir: string | null): Promise<void>;
  refreshRecentModels(): Promise<void>;
  /** Electron: picks a folder in the native dialog and switches to it. */
  chooseModelFolder(): Promise<void>;
  restartAfterCrash(): Promise<void>;
  closeDocument(): Promise<void>;
  updateSettings(patch: Partial<DecodeSettings>): void;
  setTheme(theme: Theme): void;
  toggleOverlay(name: keyof Overlays): void;
  setZoom(zoom: number | 'fit'): void;
  /** Zooms by a factor from the scale shown now (the fitting one while the page is fitted). */
  zoomBy(factor: number): void;
  /** Tells the user something about the open document (or the action they took), in place of the topic's last notice. */
  notify(kind: Notice['kind'], text: string, topic?: NoticeTopic): void;
  dismissNotice(id: number): void;
  /** Picks a round of the timeline: its detail stays, and its tokens are shown in the editor and on the page. */
  pickRound(index: number): void;
  /** Shows tokens on their page, with their heatmap (null: none). */
  spotlight(tokens: TokenRef[] | null): void;
  /** The editor's text changed: by the user's hand, or by the decode. */
  editorChanged(text: string, byUser: boolean): void;
  /** Saves a pending change of the text now. */
  flushDraft(): void;
  restoreSetAside(): void;
  discardSetAside(): void;
  forgetRecent(key: string): void;
  /**
   * The document's searchable PDF, its text layer the editor's `text` with each word where the decode behind
   * it read it (the engine makes it: RequestMap.exportSearchablePdf).
   */
  searchablePdf(text: string): Promise<Uint8Array>;
}

export type Scheduler = (flush: () => void) => void;

const THEME_KEY = 'saccade.theme';
const OVERLAYS_KEY = 'saccade.overlays';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** `runs`: where decodes are kept for their checking aids (none: they are not kept). */
export function createSession(transport: Transport, storage: KeyValueStore | null, schedule: Scheduler, runs: RunStore | null = null) {
  dropLegacyRuns(storage);
  const store: StoreApi<SessionState> = createStore<SessionState>(() => ({
    engine: { status: 'connecting' },
    vocab: [],
    models: { recent: [], switching: false, error: null, nativeDialog: transport.shell !== undefined },
    samples: [],
    recent: listRecent(storage),
    doc: null,
    run: null,
    revision: 0,
    phase: 'idle',
    notices: [],
    setAside: [],
    partial: false,
    confirmingDecode: false,
    settle: null,
    crashReason: null,
    settings: loadSettings(storage),
    focus: null,
    selectedRound: null,
    hoveredRound: null,
    spotlight: null,
    toCheck: { count: 0, at: null, word: null },
    selectedRegion: null,
    page: 0,
    zoom: 'fit',
    fitScale: 1,
    theme: readJson<Theme>(storage, THEME_KEY, 'dark') === 'light' ? 'light' : 'dark',
    overlays: { boxes: true, heatmap: true, tokens: true, ...readJson<Partial<Overlays>>(storage, OVERLAYS_KEY, {}) },
    engineLostDocument: false,
  }));

  const keeper = new DraftKeeper(storage, ({ notice, ...kept }) => store.setState((s) => (notice ? { ...kept, notices: withNotice(s.notices, notice.kind, notice.text, 'draft') } : kept)));

  let queued: EventBatch[] = [];
  let flushPending = false;
  const flush = () => {
    flushPending = false;
    const { run } = store.getState();
    // Only what names this window's run, or the whole engine: a batch of another document is not ours to show.
    const events = queued.filter((b) => b.docId === null || b.docId === run?.docId).flatMap((b) => b.events);
    queued = [];
    const crash = events.find((e) => e.type === 'engine_crashed');
    if (run) run.apply(events);
    store.setState((s) => {
      if (!crash || crash.type !== 'engine_crashed') return { revision: s.revision + 1 };
      // The engine process is gone, and with it the documents it had open: they are reopened on next use.
      const interrupted = s.phase === 'decoding' || s.phase === 'opening' || s.phase === 'failed';
      return { revision: s.revision + 1, engineLostDocument: s.doc !== null, ...(interrupted ? { phase: 'crashed' as const, crashReason: crash.reason, notices: withoutTopic(s.notices, 'action') } : {}) };
    });
  };
  transport.onEvents((batch) => {
    queued.push(batch);
    if (!flushPending) {
      flushPending = true;
      schedule(flush);
    }
  });

  /** The model is what it is: a mode it cannot run gives way to the best one it can, the setting saved. */
  const fitModeToModel = (model: ModelInfo) => {
    const { settings } = store.getState();
    if (!modeUnavailable(model, settings.mode)) return;
    const mode = (['mtp', 'spec', 'ar', 'diffusion'] as const).find((m) => !modeUnavailable(model, m)) ?? DECODE_MODES[0];
    actions.updateSettings({ mode });
  };

  const adopt = async (info: DocumentInfo, source: DocumentSource, bytes: Uint8Array) => {
    const key = documentKey(info.name, bytes);
    const previous = store.getState().doc;
    if (previous && previous.info.docId !== info.docId) void transport.request('closeDocument', { docId: previous.info.docId }).catch(() => undefined);
    // What was said about the previous document goes with it.
    store.setState({ notices: [] });
    const draft = keeper.open({ key, name: info.name, source }, loadDraft(storage, key));
    const run = await savedRunFor(draft, info.name, info.docId);
    store.setState({
      doc: { info, source, bytes, key, draft }, run, phase: run ? 'done' : 'idle', focus: null, selectedRound: null, hoveredRound: null, spotlight: null,
      selectedRegion: null, page: 0, zoom: 'fit', crashReason: null, engineLostDocument: false, settle: null, confirmingDecode: false,
    });
    transport.shell?.documentChanged(info.name);
    return draft;
  };

  /**
   * The finished decode behind a draft's text, replayed, for its checking aids; null where none is kept, which
   * the user is told, as they are when its heatmaps were not kept.
   */
  const savedRunFor = async (draft: Draft | null, name: string, docId: string): Promise<DecodeRun | null> => {
    if (!draft || draft.decoded === null || draft.partial) return null;
    const saved = await loadRun(runs, draft.key);
    const aids = savedAidsNotice(name, saved);
    if (aids) actions.notify('info', aids, 'aids');
    return saved && DecodeRun.replay(saved, docId);
  };

  /** A decode ended: finished, its text (with the user's corrections) becomes the document's; else the text from before comes back. */
  const endDecode = async (run: DecodeRun, finished: boolean) => {
    const doc = store.getState().doc;
    if (!doc) return;
    if (finished) {
      const result = keeper.finishDecode();
      if (!result) return;
      if (result.text !== result.decoded) store.setState({ settle: { decoded: result.decoded, text: result.text } });
      if (result.conflicts > 0) {
        actions.notify('info', `Your corrections are kept in the new text, ${result.conflicts} of them where the new decode read the words differently (your edited text is also set aside).`);
      }
      const kept = await saveRun(runs, doc.key, run.docId, run.log);
      const aids = keptAidsNotice(doc.info.name, kept);
      if (aids && store.getState().doc?.key === doc.key) actions.notify(kept === 'refused' ? 'error' : 'info', aids, 'aids');
      await keepRunsOf(runs, new Set(listRecent(storage).map((r) => r.key)));
      return;
    }
    const before = keeper.stopDecode();
    if (!before) return;
    const saved = await savedRunFor(before, doc.info.name, doc.info.docId);
    store.setState({ doc: { ...doc, draft: before }, run: saved, focus: null, selectedRound: null, hoveredRound: null, spotlight: null });
  };

  /**
   * Opens the document's bytes in the engine again (after an engine restart), returning its new id. A
   * restarted engine starts on the embedded model, whichever one the user had picked (it may be the one that
   * crashed it), so the UI learns the model again first.
   */
  const reopen = async (doc: OpenedDoc): Promise<string> => {
    const { model } = await transport.request('hello', {});
    store.setState((s) => ({ engine: { ...s.engine, model } }));
    fitModeToModel(model);
    if (doc.source.kind === 'sample') return (await transport.request('openSample', { name: doc.source.name })).doc.docId;
    return (await transport.request('openDocument', { name: doc.info.name, bytes: bytesToBase64(doc.bytes) })).doc.docId;
  };

  const runDecode = async (run: DecodeRun, pages: number[] | null) => {
    const { settings } = store.getState();
    store.setState((s) => ({ run, phase: 'decoding', notices: withoutTopic(s.notices, 'action'), crashReason: null, selectedRound: null, hoveredRound: null, spotlight: null }));
    try {
      const result = await transport.request('decode', { docId: run.docId, pages, options: toDecodeOptions(settings) });
      flush();
      if (store.getState().run !== run) return;
      // The editor takes the last tokens in as the phase changes, before the keeper takes the decode's text.
      store.setState({ phase: result.cancelled ? 'cancelled' : 'done' });
      await endDecode(run, !result.cancelled);
      if (result.cancelled && store.getState().run !== run) {
        store.setState({ phase: store.getState().run ? 'done' : 'idle' });
        actions.notify('info', 'Decoding was cancelled: the text from before it is back.');
      }
    } catch (err) {
      flush();
      if (store.getState().run !== run) return;
      if (store.getState().phase === 'crashed') return;
      // A crash event that is still on its way turns this into 'crashed' when it is applied.
      store.setState({ phase: 'failed' });
      await endDecode(run, false);
      actions.notify('error', `Decoding failed: ${message(err)}${store.getState().run !== run ? '; the text from before it is back' : ''}`);
    }
  };

  const actions: SessionActions = {
    async connect() {
      try {
        const hello = await transport.request('hello', {});
        store.setState({ engine: { status: 'ready', info: hello.engine, model: hello.model }, vocab: hello.vocab ?? [] });
        fitModeToModel(hello.model);
        transport.shell?.engineReady(`${hello.engine.backend} backend (${hello.engine.threads} threads), engine ${hello.engine.version}; model ${hello.model.name} (${(hello.model.parameters / 1e6).toFixed(1)}M parameters)`);
      } catch (err) {
        store.setState({ engine: { status: 'unavailable', message: message(err) } });
      }
      try {
        store.setState({ samples: await transport.request('listSamples', {}) });
      } catch {
        store.setState({ samples: [] });
      }
    },

    async openSample(name) {
      const before = store.getState().phase;
      store.setState({ phase: 'opening' });
      try {
        const { doc, bytes } = await transport.request('openSample', { name });
        const draft = await adopt(doc, { kind: 'sample', name }, base64ToBytes(bytes));
        if (!draft) await actions.decode();
      } catch (err) {
        store.setState({ phase: before });
        actions.notify('error', `Could not open the sample: ${message(err)}`);
      }
    },

    async openFile(name, bytes) {
      const before = store.getState().phase;
      store.setState({ phase: 'opening' });
      try {
        const { doc } = await transport.request('openDocument', { name, bytes: bytesToBase64(bytes) });
        const draft = await adopt(doc, { kind: 'file', name }, bytes);
        if (!draft) await actions.decode();
      } catch (err) {
        const reason = message(err);
        const text = reason.startsWith(`${name}: `) ? reason.slice(name.length + 2) : reason;
        store.setState({ phase: before });
        actions.notify('error', `Could not open ${name}: ${text}`);
      }
    },

    async decode(confirmed = false) {
      const { doc, phase, engineLostDocument } = store.getState();
      if (!doc || phase === 'decoding') return;
      keeper.flush();
      if (keeper.isEdited && !confirmed) {
        store.setState({ confirmingDecode: true });
        return;
      }
      store.setState({ confirmingDecode: false });
      let docId = doc.info.docId;
      if (engineLostDocument) {
        try {
          docId = await reopen(doc);
        } catch (err) {
          store.setState({ phase: 'failed' });
          actions.notify('error', `Could not reopen ${doc.info.name}: ${message(err)}`);
          return;
        }
      }
      // The decode writes beside the text, which it replaces only once it finishes (an edited one is also set
      // aside, restorable from its banner).
      keeper.beginDecode();
      store.setState({ doc: { ...doc, draft: null, info: { ...doc.info, docId } }, engineLostDocument: false, settle: null });
      await runDecode(new DecodeRun(docId), null);
    },

    dismissDecodeConfirm() {
      store.setState({ confirmingDecode: false });
    },

    async cancel() {
      if (store.getState().phase !== 'decoding') return;
      await transport.request('cancel', {}).catch(() => undefined);
    },

    async switchModel(dir) {
      const { engine, models, phase } = store.getState();
      if (models.switching || phase === 'decoding' || engine.status !== 'ready') return;
      store.setState({ models: { ...models, switching: true, error: null } });
      try {
        const { model, vocab } = await transport.request('switchModel', { dir });
        store.setState((s) => ({ engine: { ...s.engine, model }, vocab: vocab ?? [], models: { ...s.models, switching: false } }));
        fitModeToModel(model);
        await actions.refreshRecentModels();
      } catch (err) {
        store.setState((s) => ({ models: { ...s.models, switching: false, error: message(err) } }));
      }
    },

    async chooseModelFolder() {
      const dir = await transport.shell?.chooseModelFolder();
      if (dir) await actions.switchModel(dir);
    },

    async refreshRecentModels() {
      try {
        const { folders } = await transport.request('recentModels', {});
        store.setState((s) => ({ models: { ...s.models, recent: folders } }));
      } catch {
        // The picker still offers the embedded model and a new folder.
      }
    },

    async restartAfterCrash() {
      const { doc, run } = store.getState();
      if (!doc) return;
      store.setState({ phase: 'opening', crashReason: null });
      actions.notify('info', 'Restarting the engine…');
      try {
        const docId = await reopen(doc);
        store.setState({ doc: { ...doc, info: { ...doc.info, docId } }, engineLostDocument: false });
        if (!run) {
          keeper.beginDecode();
          await runDecode(new DecodeRun(docId), null);
          return;
        }
        const pages = run.unfinishedPages(doc.info.pages.length);
        run.restartPages(pages, docId);
        await runDecode(run, pages);
      } catch (err) {
        store.setState({ phase: 'crashed', crashReason: message(err) });
      }
    },

    async closeDocument() {
      const { doc, phase } = store.getState();
      if (!doc) return;
      if (phase === 'decoding') await actions.cancel();
      void transport.request('closeDocument', { docId: doc.info.docId }).catch(() => undefined);
      keeper.close();
      store.setState({ doc: null, run: null, phase: 'idle', focus: null, selectedRound: null, hoveredRound: null, spotlight: null, notices: [], setAside: [], partial: false, settle: null, recent: listRecent(storage) });
      transport.shell?.documentChanged(null);
    },

    updateSettings(patch) {
      const settings = { ...store.getState().settings, ...patch };
      saveSettings(storage, settings);
      store.setState({ settings });
    },

    setTheme(theme) {
      writeJson(storage, THEME_KEY, theme);
      store.setState({ theme });
    },

    toggleOverlay(name) {
      const overlays = { ...store.getState().overlays, [name]: !store.getState().overlays[name] };
      writeJson(storage, OVERLAYS_KEY, overlays);
      store.setState({ overlays });
    },

    setZoom(zoom) {
      store.setState({ zoom: zoom === 'fit' ? 'fit' : Math.min(8, Math.max(0.1, zoom)) });
    },

    zoomBy(factor) {
      const { zoom, fitScale } = store.getState();
      actions.setZoom((zoom === 'fit' ? fitScale : zoom) * factor);
    },

    notify(kind, text, topic = 'action') {
      store.setState((s) => ({ notices: withNotice(s.notices, kind, text, topic) }));
    },

    dismissNotice(id) {
      store.setState((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
    },

    pickRound(index) {
      const { run } = store.getState();
      const entry = run?.timeline[index];
      if (!run || !entry) return;
      const region = run.regions.get(entry.regionId);
      const tokens = (region?.tokens ?? []).filter((t) => t.round === entry.event.round).map((t) => ({ regionId: entry.regionId, index: t.index }));
      store.setState({ selectedRound: index });
      actions.spotlight(tokens);
    },

    spotlight(tokens) {
      const { run } = store.getState();
      const at = tokens && run?.tokensBox(tokens);
      if (!tokens || !at) {
        store.setState({ spotlight: null });
        return;
      }
      store.setState({ spotlight: { tokens, page: at.page, box: at.box }, focus: tokens, page: at.page });
    },

    editorChanged(text, byUser) {
      keeper.changed(text, byUser);
    },

    flushDraft() {
      keeper.flush();
    },

    restoreSetAside() {
      const { doc, phase } = store.getState();
      if (!doc || phase === 'decoding' || phase === 'opening') return;
      const draft = keeper.restore();
      // The restored text is not the run's output, so the run goes with the text it decoded.
      if (draft) store.setState({ doc: { ...doc, draft }, run: null, phase: 'idle', focus: null, selectedRound: null, hoveredRound: null, spotlight: null, crashReason: null, settle: null });
    },

    discardSetAside() {
      keeper.discard();
    },

    forgetRecent(key) {
      forgetDraft(storage, key);
      const recent = listRecent(storage);
      store.setState({ recent });
      void keepRunsOf(runs, new Set(recent.map((r) => r.key)));
    },

    async searchablePdf(text) {
      const { doc, run, engineLostDocument } = store.getState();
      if (!doc) throw new Error('no document is open');
      // Without the decode behind the text its words have no places, and an export would pile them at the
      // pages' tops: refused rather than degraded.
      if (!run) throw new Error('the places of its words are not known here (the decode behind the text is not kept): decode it again, then export');
      let docId = doc.info.docId;
      if (engineLostDocument) {
        docId = await reopen(doc);
        const now = store.getState().doc;
        if (now?.key === doc.key) store.setState({ doc: { ...now, info: { ...now.info, docId } }, engineLostDocument: false });
      }
      // The decode the text was made from, as this window holds it: the engine may never have run it (a
      // saved run replayed after a reload).
      const { bytes } = await transport.request('exportSearchablePdf', { docId, text, events: exportEvents(run.log) });
      return base64ToBytes(bytes);
    },
  };

  return { store, actions };
}

export type Session = ReturnType<typeof createSession>;
