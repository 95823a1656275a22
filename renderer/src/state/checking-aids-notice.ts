// What the user is told when a decode's checking aids (tints, words to check, rounds, statistics, heatmaps)
// will not all come back with its text: said when the decode is kept, and again when its document is reopened.
import { RUN_BUDGET_BYTES, type RunKept, type SavedRun } from './saved-runs';

const BUDGET = `the ${RUN_BUDGET_BYTES / 2 ** 20} MB Saccade keeps per document`;

/** After a decode finished and was kept: null when it was kept whole. */
export function keptAidsNotice(name: string, kept: RunKept): string | null {
  switch (kept) {
    case 'whole': return null;
    case 'without heatmaps': return `The heatmaps of ${name}'s decode will not come back after a reload: the decode is larger than ${BUDGET}. Its tints, words to check, rounds and word positions will.`;
    case 'too large': return `The checking aids of ${name}'s decode will not come back after a reload: even without its heatmaps the decode is larger than ${BUDGET}. Its text will.`;
    case 'refused': return `The checking aids of ${name}'s decode could not be kept in this browser's storage (it is full or unavailable): after a reload only its text comes back.`;
  }
}

/** When a document's decoded text is reopened: null when its decode came back whole. */
export function savedAidsNotice(name: string, saved: SavedRun | null): string | null {
  if (!saved) return `The checking aids of ${name}'s last decode (tints, words to check, rounds, heatmaps) were not kept: decode again to see them.`;
  return saved.withoutHeatmaps ? `${name} is shown with its last decode's checking aids but without its heatmaps, which were over ${BUDGET}.` : null;
}
