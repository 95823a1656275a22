// The jobs a batch's workers have in hand, for `status`: each with its document, its pages and the worker
// reading it (BullMQ keeps the worker's name in the job). A job whose lock has run out is "retrying": its
// worker stopped renewing it (killed, or cut off), and the next stalled check, run by any live worker, gives
// it to another. Read straight from BullMQ's keys, a job's payload only where it is within a worker's bound
// (batch-job.ts MAX_JOB_BYTES), checked in Redis before it is sent.
import type { Redis } from 'ioredis';
import { MAX_JOB_BYTES, QUEUE_NAME } from './batch-job';

/** Jobs looked at, at most. */
const MAX_SHOWN = 50;
/** A job's payload and worker name, where the payload is at most ARGV[1] characters. */
const READ_SMALL = `if redis.call('HSTRLEN', KEYS[1], 'data') > tonumber(ARGV[1]) or redis.call('HSTRLEN', KEYS[1], 'pb') > 200 then return nil end
return redis.call('HMGET', KEYS[1], 'data', 'pb')`;

export interface JobInHand {
  doc: string;
  /** Its first and last page, 1-based. */
  pages: [number, number];
  worker: string;
  retrying: boolean;
}

export async function jobsInHand(redis: Redis, batch: string): Promise<JobInHand[]> {
  const prefix = `bull:${QUEUE_NAME}:`;
  const ids = (await redis.lrange(`${prefix}active`, 0, MAX_SHOWN - 1)).filter((id) => id.startsWith(`${batch}-`));
  const found: JobInHand[] = [];
  for (const id of ids) {
    const [read, locked] = await Promise.all([redis.eval(READ_SMALL, 1, prefix + id, MAX_JOB_BYTES), redis.exists(`${prefix}${id}:lock`)]);
    const [data, worker] = (read ?? []) as Array<string | null>;
    if (!data) continue;
    let job: { doc?: unknown; pages?: unknown };
    try {
      job = JSON.parse(data) as typeof job;
    } catch {
      continue;
    }
    const pages = job.pages;
    if (typeof job.doc !== 'string' || !Array.isArray(pages) || !pages.every(Number.isSafeInteger)) continue;
    found.push({ doc: job.doc.slice(0, 300), pages: [pages[0] + 1, pages[1] + 1], worker: worker ?? 'a worker', retrying: locked === 0 });
  }
  return found;
}
