// What `npm run batch -- status` says of a batch: pages done of all, documents written, the rate over the
// last minutes, the time left at that rate, the workers alive, and each failed document with its reason.
import type { BatchStatus } from './batch-state';
import { RATE_MINUTES } from './batch-state';
import { terminalText } from '../terminal-text';

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** Seconds left at the recent rate; null when nothing was read lately. */
export function secondsLeft(s: BatchStatus): number | null {
  return s.pagesPerSecond ? Math.max(0, s.pages - s.donePages) / s.pagesPerSecond : null;
}

/** Every document written or failed. */
export function finished(s: BatchStatus): boolean {
  return s.doneDocuments + s.failed.length >= s.documents;
}

export function statusText(s: BatchStatus, workers: number): string {
  const left = secondsLeft(s);
  const lines = [
    `batch ${s.id} -> ${terminalText(s.out)}: ${s.donePages}/${s.pages} pages (${s.pages ? Math.floor((100 * s.donePages) / s.pages) : 100}%), `
    + `${s.doneDocuments}/${s.documents} documents written, `
    + (s.pagesPerSecond ? `${s.pagesPerSecond.toFixed(2)} pages/s over the last ${RATE_MINUTES} min, ` : 'no pages read lately, ')
    + (finished(s) ? 'finished' : left !== null ? `about ${duration(left)} left` : 'time left unknown')
    + `, ${workers} worker(s) alive`,
  ];
  if (s.failed.length) lines.push(`failed (${s.failed.length}):`, ...s.failed.map((f) => `  ${terminalText(f.doc)}: ${terminalText(f.reason)}`));
  return lines.join('\n');
}
