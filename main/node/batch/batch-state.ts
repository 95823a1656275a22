// A batch's state in Redis, beside BullMQ's own keys: what was added (documents, pages, output folder, decode
// flags), how many pages and documents are done, pages done per minute (the status's rate) and the documents
// that failed with their one-line reasons. Counts are raised only by the worker that kept a page first
// (PageStore.put), so a page delivered twice counts once. Keys are per batch and few: a batch costs Redis a
// few hundred bytes plus one field per failed document and per minute of work.
import type { Redis } from 'ioredis';

const PREFIX = 'saccade:batch:';
const LIST = 'saccade:batches';

export interface BatchRecord {
  id: string;
  out: string;
  flags: string[];
  outputs: { json: boolean; hocr: boolean };
  documents: number;
  pages: number;
  donePages: number;
  doneDocuments: number;
  added: string;
}

export interface BatchStatus extends BatchRecord {
  /** Pages per second over the last RATE_MINUTES minutes (null before any page). */
  pagesPerSecond: number | null;
  failed: Array<{ doc: string; reason: string }>;
}

export const RATE_MINUTES = 5;

/**
 * A batch as added. `done`: what was read already when it was added (pages an earlier batch read); a batch
 * added again keeps its own counts.
 */
export async function recordBatch(redis: Redis, b: Omit<BatchRecord, 'donePages' | 'doneDocuments'>, done: { pages: number; documents: number }): Promise<void> {
  await redis.multi()
    .hset(PREFIX + b.id, { out: b.out, flags: JSON.stringify(b.flags), outputs: JSON.stringify(b.outputs), documents: b.documents, pages: b.pages, added: b.added })
    .hsetnx(PREFIX + b.id, 'donePages', done.pages)
    .hsetnx(PREFIX + b.id, 'doneDocuments', done.documents)
    .zadd(LIST, Date.now(), b.id)
    .exec();
}

export async function pageDone(redis: Redis, batch: string): Promise<void> {
  await redis.multi()
    .hincrby(PREFIX + batch, 'donePages', 1)
    .hincrby(`${PREFIX}${batch}:minutes`, String(Math.floor(Date.now() / 60_000)), 1)
    .exec();
}

export async function documentDone(redis: Redis, batch: string, doc: string): Promise<void> {
  await redis.multi().hincrby(PREFIX + batch, 'doneDocuments', 1).hdel(`${PREFIX}${batch}:failed`, doc).exec();
}

export async function documentFailed(redis: Redis, batch: string, doc: string, reason: string): Promise<void> {
  await redis.hset(`${PREFIX}${batch}:failed`, doc, reason.split('\n')[0]!.slice(0, 500));
}

/** The newest batch's id, for a status asked without one. */
export async function latestBatch(redis: Redis): Promise<string | null> {
  const [id] = await redis.zrevrange(LIST, 0, 0);
  return id ?? null;
}

export async function batchStatus(redis: Redis, id: string): Promise<BatchStatus | null> {
  const [h, minutes, failed] = await Promise.all([
    redis.hgetall(PREFIX + id), redis.hgetall(`${PREFIX}${id}:minutes`), redis.hgetall(`${PREFIX}${id}:failed`),
  ]);
  if (!h.out) return null;
  const now = Math.floor(Date.now() / 60_000);
  // The current minute counts for the part of it that has passed.
  const recent = Object.entries(minutes).filter(([m]) => now - Number(m) < RATE_MINUTES);
  const seconds = recent.length ? (now - Math.min(...recent.map(([m]) => Number(m)))) * 60 + (Date.now() / 1000) % 60 : 0;
  const pagesRecently = recent.reduce((n, [, c]) => n + Number(c), 0);
  return {
    id, out: h.out, flags: JSON.parse(h.flags!) as string[], outputs: JSON.parse(h.outputs!) as BatchRecord['outputs'],
    documents: Number(h.documents), pages: Number(h.pages), donePages: Number(h.donePages), doneDocuments: Number(h.doneDocuments), added: h.added!,
    pagesPerSecond: pagesRecently > 0 && seconds > 0 ? pagesRecently / seconds : null,
    failed: Object.entries(failed).map(([doc, reason]) => ({ doc, reason })).sort((a, b) => a.doc.localeCompare(b.doc)),
  };
}
