// The events of a document's last finished decode, kept beside its draft so that reopening it brings back the
// checking aids (token tints, words to check, rounds, statistics, heatmaps, word boxes for the searchable PDF)
// and not only the text. Kept as compact bytes (run-codec.ts) in IndexedDB (run-store.ts), up to
// RUN_BUDGET_BYTES a document: a dense 50-page PDF fits whole. Past it the heatmaps are cut to their peaks (the
// word boxes stay), and past that nothing is kept; the caller tells the user either way. Only the documents
// that keep a draft keep a decode.
import { checkSessionEvent, type SessionEvent } from '../../../common/protocol';
import { readJson, type KeyValueStore } from './persisted';
import { decodeRun, encodeRun } from './run-codec';
import type { RunStore } from './run-store';

export interface SavedRun {
  /** The document id the events name (a reopened document gets a new one). */
  docId: string;
  events: readonly SessionEvent[];
  /** The heatmaps were cut to their peaks to fit the budget. */
  withoutHeatmaps: boolean;
}

/** Bytes one document's decode may keep: 50 pages of 2,000 tokens, each with a 32-cell heatmap, take 23 MB. */
export const RUN_BUDGET_BYTES = 32 * 2 ** 20;

/** What became of a decode handed to saveRun. */
export type RunKept = 'whole' | 'without heatmaps' | 'too large' | 'refused';

/** Keeps a decode's events for the document, replacing the one kept before; `budget`: the bytes it may take. */
export async function saveRun(runs: RunStore | null, key: string, docId: string, events: readonly SessionEvent[], budget = RUN_BUDGET_BYTES): Promise<RunKept> {
  if (!runs) return 'refused';
  const whole = encodeRun(docId, events, 'whole', budget);
  const bytes = whole ?? encodeRun(docId, events, 'peaks', budget);
  try {
    if (!bytes) {
      // An older decode must not stand behind the newer text.
      await runs.delete(key);
      return 'too large';
    }
    await runs.put(key, bytes);
    return whole ? 'whole' : 'without heatmaps';
  } catch {
    await runs.delete(key).catch(() => undefined);
    return 'refused';
  }
}

export async function loadRun(runs: RunStore | null, key: string): Promise<SavedRun | null> {
  const bytes = runs && await runs.get(key).catch(() => null);
  const run = bytes && decodeRun(bytes);
  if (!run) return null;
  // Storage is as untrusted as the socket: what the engine would not be let send is not replayed either.
  const events = run.events.filter((e) => checkSessionEvent(e) === null);
  return { docId: run.docId, events, withoutHeatmaps: run.heatmaps === 'peaks' };
}

/** Drops the kept decodes of every document but `keys` (those that keep a draft). */
export async function keepRunsOf(runs: RunStore | null, keys: ReadonlySet<string>): Promise<void> {
  if (!runs) return;
  try {
    for (const key of await runs.keys()) if (!keys.has(key)) await runs.delete(key);
  } catch {
    // Nothing is lost: the next save tries again.
  }
}

/**
 * Frees the localStorage that earlier versions kept decodes in (up to three million characters of the five
 * the drafts share).
 */
export function dropLegacyRuns(storage: KeyValueStore | null): void {
  const index = readJson<unknown>(storage, 'saccade.runs', null);
  if (!storage || !Array.isArray(index)) return;
  for (const key of index) if (typeof key === 'string') storage.removeItem(`saccade.run.${key}`);
  storage.removeItem('saccade.runs');
}
