// Autosaved editor text, keyed by the document's content, so an edit survives a reload or a crash, plus the
// list of recent documents the welcome view offers. Samples can be reopened from the engine by name; files
// only by opening them again (their bytes are not kept). Text the user edited is never dropped to make
// room: only decoded text is, which decoding again brings back, and the caller is told which. The decode
// behind a text (its events, for the checking aids) is kept apart, in saved-runs.ts, for the documents listed here.
import { readJson, writeJson, type KeyValueStore } from './persisted';

export type DocumentSource = { kind: 'sample'; name: string } | { kind: 'file'; name: string };

/** An edited text a later decode replaced, kept until the user restores or discards it. */
export interface SetAsideText {
  text: string;
  savedAt: number;
}

export interface Draft {
  key: string;
  name: string;
  source: DocumentSource;
  /** What the editor shows when the document is opened again. */
  text: string;
  /** The text holds the user's changes, not only what the model decoded. */
  edited: boolean;
  /** What the last decode that finished wrote: the text the user's corrections are merged against. */
  decoded: string | null;
  /** The text is what a decode that did not finish left, there being no finished text to keep. */
  partial: boolean;
  /** A decode under way: its text so far, kept beside `text`, which it replaces only once it finishes. */
  running: { text: string; edited: boolean } | null;
  savedAt: number;
  /** Newest first. */
  setAside: SetAsideText[];
}

export interface RecentEntry {
  key: string;
  name: string;
  source: DocumentSource;
  savedAt: number;
  /** Its text or a set-aside one holds the user's changes, so it is never dropped to make room. */
  edited: boolean;
  /** Its text is what a decode that did not finish left. */
  partial: boolean;
}

export interface SaveOutcome {
  /** False when storage refused the text (full, or none available): a reload would lose it. */
  saved: boolean;
  /** Documents whose decoded, unedited text was dropped to keep the list at MAX_RECENT. */
  dropped: RecentEntry[];
  /**
   * When this save added a document and the list now holds more than MAX_RECENT, because every older one
   * holds edits: how many it holds.
   */
  crowded: number | null;
}

export const MAX_RECENT = 8;
const RECENT_KEY = 'saccade.recent';
const draftKey = (key: string) => `saccade.draft.${key}`;

/** FNV-1a over the length and a bounded prefix/suffix of the bytes: cheap on the UI thread, stable per file. */
export function documentKey(name: string, bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  const mix = (b: number) => { h ^= b; h = Math.imul(h, 0x01000193) >>> 0; };
  const span = 1 << 20;
  for (let i = 0; i < Math.min(bytes.length, span); i++) mix(bytes[i]!);
  for (let i = Math.max(span, bytes.length - span); i < bytes.length; i++) mix(bytes[i]!);
  for (const c of String(bytes.length)) mix(c.charCodeAt(0));
  return `${h.toString(16).padStart(8, '0')}-${name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 60)}`;
}

// Drafts and entries saved before `edited` existed may hold edits, so they count as edited.
export function loadDraft(storage: KeyValueStore | null, key: string): Draft | null {
  const d = readJson<Partial<Draft> | null>(storage, draftKey(key), null);
  if (!d || typeof d.text !== 'string') return null;
  const setAside = Array.isArray(d.setAside) ? d.setAside.filter((v) => v && typeof v.text === 'string') : [];
  const running = d.running && typeof d.running.text === 'string' ? { text: d.running.text, edited: d.running.edited === true } : null;
  return {
    ...d, edited: d.edited !== false, setAside, running,
    decoded: typeof d.decoded === 'string' ? d.decoded : null, partial: d.partial === true,
  } as Draft;
}

export function listRecent(storage: KeyValueStore | null): RecentEntry[] {
  const list = readJson<unknown>(storage, RECENT_KEY, []);
  if (!Array.isArray(list)) return [];
  return list.filter((r) => r && typeof r.key === 'string' && typeof r.name === 'string')
    .map((r: RecentEntry) => ({ ...r, edited: r.edited !== false, partial: r.partial === true }));
}

export function saveDraft(storage: KeyValueStore | null, draft: Draft): SaveOutcome {
  const refused: SaveOutcome = { saved: false, dropped: [], crowded: null };
  if (!writeJson(storage, draftKey(draft.key), draft)) return refused;
  const recent = listRecent(storage);
  const entry: RecentEntry = {
    key: draft.key, name: draft.name, source: draft.source, savedAt: draft.savedAt,
    edited: draft.edited || draft.setAside.length > 0 || draft.running?.edited === true, partial: draft.partial,
  };
  const kept = [entry, ...recent.filter((r) => r.key !== draft.key)];
  const dropped: RecentEntry[] = [];
  // The list is newest first: the oldest unedited documents go first, edited ones never.
  for (let i = kept.length - 1; i > 0 && kept.length > MAX_RECENT; i--) {
    if (!kept[i]!.edited) dropped.push(...kept.splice(i, 1));
  }
  if (!writeJson(storage, RECENT_KEY, kept)) return refused;
  for (const d of dropped) storage?.removeItem(draftKey(d.key));
  const added = !recent.some((r) => r.key === draft.key);
  return { saved: true, dropped, crowded: added && kept.length > MAX_RECENT ? kept.length : null };
}

export function forgetDraft(storage: KeyValueStore | null, key: string): void {
  storage?.removeItem(draftKey(key));
  writeJson(storage, RECENT_KEY, listRecent(storage).filter((r) => r.key !== key));
}
