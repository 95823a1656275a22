// Autosaved editor text, keyed by the document's content, so an edit survives a reload or a crash, plus the
// list of recent documents the welcome view offers. Samples can be reopened from the engine by name; files
// only by opening them again (their bytes are not kept).
import { readJson, writeJson, type KeyValueStore } from './persisted';

export type DocumentSource = { kind: 'sample'; name: string } | { kind: 'file'; name: string };

export interface Draft {
  key: string;
  name: string;
  source: DocumentSource;
  text: string;
  savedAt: number;
}

const RECENT_KEY = 'saccade.recent';
const MAX_RECENT = 8;
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

export function loadDraft(storage: KeyValueStore | null, key: string): Draft | null {
  const d = readJson<Draft | null>(storage, draftKey(key), null);
  return d && typeof d.text === 'string' ? d : null;
}

export function saveDraft(storage: KeyValueStore | null, draft: Draft): boolean {
  if (!writeJson(storage, draftKey(draft.key), draft)) return false;
  const recent = listRecent(storage).filter((r) => r.key !== draft.key);
  const entry = { key: draft.key, name: draft.name, source: draft.source, savedAt: draft.savedAt };
  const kept = [entry, ...recent].slice(0, MAX_RECENT);
  for (const old of [entry, ...recent].slice(MAX_RECENT)) storage?.removeItem(draftKey(old.key));
  return writeJson(storage, RECENT_KEY, kept);
}

export function listRecent(storage: KeyValueStore | null): Array<Omit<Draft, 'text'>> {
  const list = readJson<unknown>(storage, RECENT_KEY, []);
  return Array.isArray(list) ? list.filter((r) => r && typeof r.key === 'string' && typeof r.name === 'string') : [];
}

export function forgetDraft(storage: KeyValueStore | null, key: string): void {
  storage?.removeItem(draftKey(key));
  writeJson(storage, RECENT_KEY, listRecent(storage).filter((r) => r.key !== key));
}
