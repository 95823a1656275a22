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

/** A connection as BullMQ needs it: commands wait through a Redis restart instead of failing. */
export function connect(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
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
