// What a window sends of its decode for a searchable PDF export (RequestMap.exportSearchablePdf): the events
// that place words (the layout and its lines' ink, each region's grid, its tokens and what was taken back),
// each token's heatmap cut to its peak, the one cell a word's box is made of (word-boxes.ts). A page's rounds,
// progress and full heatmaps are most of a decode's size and place nothing.
import { EXPORT_EVENT_TYPES, type SessionEvent } from './protocol';

const PLACING = new Set<string>(EXPORT_EVENT_TYPES);

export function exportEvents(log: readonly SessionEvent[]): SessionEvent[] {
  return log.filter((e) => PLACING.has(e.type)).map((e) => {
    if (e.type !== 'token' || !e.fixation) return e;
    const { indices, weights, frame } = e.fixation;
    return { ...e, fixation: { indices: indices.slice(0, 1), weights: weights.slice(0, 1), ...(frame ? { frame } : {}) } };
  });
}
