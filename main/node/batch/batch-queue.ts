// The queue every batch command uses, with the settings its guarantees rest on (docs/decisions/0031):
// - a job is tried JOB_ATTEMPTS times, RETRY_DELAY_MS apart and doubling, before its document is failed;
// - a worker holds a job's lock for LOCK_MS (renewed every half of it while its page is read, since reading runs
//   off the event loop in the engine's own threads); a worker that dies leaves its job locked until the lock
//   runs out, then the stalled check (every half lock) gives it to another worker, at most MAX_STALLS times;
// - finished jobs leave Redis at once (their pages are on disk, named by content and options); failed ones
//   stay, few, for `status`.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUE_NAME } from './batch-job';

export const JOB_ATTEMPTS = 3;
export const RETRY_DELAY_MS = 10_000;
/** Long enough for a page on a slow CPU with the event loop busy for seconds; a dead worker's job waits this long. */
export const LOCK_MS = 60_000;
export const MAX_STALLS = 2;

/**
 * A connection. A worker's (`patient`) waits through a Redis restart instead of failing, as BullMQ's workers
 * need; a command's (add, status) gives up after a few tries with one line, rather than hanging on a Redis that
 * is not there.
 */
export function connect(url: string, patient = true): Redis {
  return patient
    ? new Redis(url, { maxRetriesPerRequest: null })
    : new Redis(url, { maxRetriesPerRequest: 2, retryStrategy: (times) => (times > 3 ? null : 200 * times) });
}

export function openQueue(connection: Redis): Queue {
  return new Queue(QUEUE_NAME, {
    connection,
    defaultJobOptions: {
      attempts: JOB_ATTEMPTS,
      backoff: { type: 'exponential', delay: RETRY_DELAY_MS },
      removeOnComplete: true,
      removeOnFail: false,
    },
  });
}
