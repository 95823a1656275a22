// What `npm run batch -- status` says of a batch: pages done of all, documents written, the rate over the
// last pages read, the time left at that rate, the workers alive, each job in hand with its worker ("retrying"
// once its lock has run out), and each failed document with its reason.
import type { JobInHand } from './batch-reading';
import type { BatchStatus } from './batch-state';
import { RATE_PAGES } from './batch-state';
import { terminalText } from '../cli/terminal-text';

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

export function statusText(s: BatchStatus, workers: number, inHand: readonly JobInHand[]): string {
  const left = secondsLeft(s);
  const lines = [
    `batch ${s.id} -> ${terminalText(s.out)}: ${s.donePages}/${s.pages} pages (${s.pages ? Math.floor((100 * s.donePages) / s.pages) : 100}%), `
    + `${s.doneDocuments}/${s.documents} documents written, `
    + (s.pagesPerSecond ? `${s.pagesPerSecond.toFixed(2)} pages/s over the last ${RATE_PAGES} pages read, ` : 'no pages read lately, ')
    + (finished(s) ? 'finished' : left !== null ? `about ${duration(left)} left` : 'time left unknown')
    + `, ${workers} worker(s) alive`,
  ];
  for (const j of inHand) {
    const what = `${terminalText(j.doc)} pages ${j.pages[0]}-${j.pages[1]}`;
    lines.push(j.retrying ? `  retrying ${what}: ${terminalText(j.worker)} stopped renewing its lock; the next worker to check takes it` : `  reading ${what} (${terminalText(j.worker)})`);
  }
  if (s.failed.length) lines.push(`failed (${s.failed.length}):`, ...s.failed.map((f) => `  ${terminalText(f.doc)}: ${terminalText(f.reason)}`));
  return lines.join('\n');
}

/** One batch in `npm run batch -- list`. */
export function listLine(s: BatchStatus): string {
  return `${s.id}  added ${s.added}  -> ${terminalText(s.out)}: ${s.donePages}/${s.pages} pages, ${s.doneDocuments}/${s.documents} documents written, `
    + `${s.failed.length} failed, ${finished(s) ? 'finished' : 'not finished'}`;
}
