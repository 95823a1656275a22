// The events of a document's last finished decode, kept beside its draft so that reopening it brings back the
// checking aids (token tints, words to check, rounds, statistics, heatmaps) and not only the text. They are
// a convenience the text never waits on: bounded per document and in number, heatmaps dropped first when a
// decode is too large to keep whole, and given up before a draft's text would be.
import { checkSessionEvent, type SessionEvent } from '../../../common/protocol';
import { readJson, writeJson, type KeyValueStore } from './persisted';

export interface SavedRun {
  /** The document id the events name (a reopened document gets a new one). */
  docId: string;
  events: readonly SessionEvent[];
  /** The heatmaps were dropped to fit the budget. */
  withoutHeatmaps: boolean;
}

/** Characters of JSON one decode may keep: browser storage holds about five million in all. */
export const RUN_BUDGET_CHARS = 1_000_000;
/** Documents whose decodes are kept, the most recently saved. */
export const RUNS_KEPT = 3;
const INDEX_KEY = 'saccade.runs';
const runKey = (key: string) => `saccade.run.${key}`;

function index(storage: KeyValueStore | null): string[] {
  const list = readJson<unknown>(storage, INDEX_KEY, []);
  return Array.isArray(list) ? list.filter((k): k is string => typeof k === 'string') : [];
}

function withoutHeatmaps(events: readonly SessionEvent[]): SessionEvent[] {
  return events.map((e) => (e.type === 'token' && e.fixation ? { ...e, fixation: null } : e));
}

/** The JSON to keep for a decode, heatmaps dropped if need be, or null when even that is over the budget. */
function encode(docId: string, events: readonly SessionEvent[]): string | null {
  const whole = JSON.stringify({ docId, events, withoutHeatmaps: false } satisfies SavedRun);
  if (whole.length <= RUN_BUDGET_CHARS) return whole;
  const slim = JSON.stringify({ docId, events: withoutHeatmaps(events), withoutHeatmaps: true } satisfies SavedRun);
  return slim.length <= RUN_BUDGET_CHARS ? slim : null;
}

/** Keeps a decode's events for the document; false when it is too large or storage refused it. */
export function saveRun(storage: KeyValueStore | null, key: string, docId: string, events: readonly SessionEvent[]): boolean {
  if (!storage) return false;
  const json = encode(docId, events);
  forgetRun(storage, key);
  if (json === null) return false;
  let kept = index(storage);
  // Older decodes make room, up to all of them.
  for (;;) {
    try {
      storage.setItem(runKey(key), json);
      break;
    } catch {
      const oldest = kept.at(-1);
      if (oldest === undefined) return false;
      forgetRun(storage, oldest);
      kept = kept.slice(0, -1);
    }
  }
  kept = [key, ...kept];
  for (const gone of kept.splice(RUNS_KEPT)) storage.removeItem(runKey(gone));
  return writeJson(storage, INDEX_KEY, kept);
}

export function loadRun(storage: KeyValueStore | null, key: string): SavedRun | null {
  const run = readJson<Partial<SavedRun> | null>(storage, runKey(key), null);
  if (!run || typeof run.docId !== 'string' || !Array.isArray(run.events)) return null;
  // Storage is as untrusted as the socket: what the engine would not be let send is not replayed either.
  const events = run.events.filter((e) => checkSessionEvent(e) === null);
  return { docId: run.docId, events, withoutHeatmaps: run.withoutHeatmaps === true };
}

export function forgetRun(storage: KeyValueStore | null, key: string): void {
  if (!storage) return;
  storage.removeItem(runKey(key));
  const kept = index(storage);
  if (kept.includes(key)) writeJson(storage, INDEX_KEY, kept.filter((k) => k !== key));
}

/** Gives up every kept decode: what a draft's text is worth more than. */
export function forgetAllRuns(storage: KeyValueStore | null): void {
  for (const key of index(storage)) forgetRun(storage, key);
}
