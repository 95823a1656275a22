// `npm run batch -- clear BATCH`: a batch leaves Redis. Its jobs that are waiting, delayed or failed are removed
// from the queue (found by their ids, which start with the batch's: batch-add.ts), and its record, counts and
// failures are deleted. A job being read is left to finish: BullMQ does not remove a locked job. The outputs
// and the kept pages stay on the storage: adding the same documents again reads nothing that is kept.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_NAME } from './batch-job';
import { forgetBatch } from './batch-state';

export interface Cleared {
  removed: number;
  /** Jobs being read, left to finish. */
  busy: number;
}

export async function clearBatch(redis: Redis, queue: Queue, id: string): Promise<Cleared> {
  if (!/^[0-9a-f]{16}$/.test(id)) throw new Error(`${id} is not a batch id (16 hexadecimal digits; npm run batch -- list shows them)`);
  const jobKey = new RegExp(`^bull:${QUEUE_NAME}:(${id}-\\d+-\\d+)$`);
  const cleared: Cleared = { removed: 0, busy: 0 };
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `bull:${QUEUE_NAME}:${id}-*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const jobId = jobKey.exec(key)?.[1];
      if (!jobId) continue;
      if (await queue.remove(jobId)) cleared.removed++;
      else cleared.busy++;
    }
  } while (cursor !== '0');
  await forgetBatch(redis, id);
  return cleared;
}
