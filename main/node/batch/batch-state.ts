// A batch's state in Redis, beside BullMQ's own keys: what was added (documents, pages, output folder, decode
// flags), which pages and documents are done, when the last pages were read (the status's rate) and the
// documents that failed with their one-line reasons. Done pages and documents are bits at their place in the
// batch (PageJob.place), so a page kept twice, read again or counted by a re-add is one bit: the counts are
// of distinct pages and documents and never run past the totals. `add` sets the bits from what is on the
// storage when it runs; the workers set those of what they keep. A batch costs Redis a few hundred bytes, a bit
// per page and per document, and a field per failed document.
import type { Redis } from 'ioredis';

const PREFIX = 'saccade:batch:';
const LIST = 'saccade:batches';
/** The status's rate is over the last pages read, as many as this. */
export const RATE_PAGES = 20;
/** Pages read longer ago than this are not a rate: "no pages read lately". */
export const RATE_STALE_MS = 5 * 60_000;

export interface BatchRecord {
  id: string;
  out: string;
  flags: string[];
  outputs: { json: boolean; hocr: boolean };
  documents: number;
  pages: number;
  added: string;
}

export interface BatchStatus extends BatchRecord {
  donePages: number;
  doneDocuments: number;
  /** Pages per second over the last RATE_PAGES pages read (null when fewer than two, or none lately). */
  pagesPerSecond: number | null;
  failed: Array<{ doc: string; reason: string }>;
}

/** Bits set at the given places, in Redis's order (the first bit is the first byte's highest). */
export function bitmap(places: Iterable<number>, size: number): Buffer {
  const bits = Buffer.alloc(Math.ceil(size / 8));
  for (const p of places) bits[p >> 3]! |= 0x80 >> (p & 7);
  return bits;
}

/**
 * A batch as added, with the pages and documents found done on the storage (bitmap), which replace what was
 * counted before: a page moved away since is no longer done.
 */
export async function recordBatch(redis: Redis, b: BatchRecord, done: { pages: Buffer; documents: Buffer }): Promise<void> {
  await redis.multi()
    .hset(PREFIX + b.id, { out: b.out, flags: JSON.stringify(b.flags), outputs: JSON.stringify(b.outputs), documents: b.documents, pages: b.pages, added: b.added })
    .set(`${PREFIX}${b.id}:pages`, done.pages)
    .set(`${PREFIX}${b.id}:documents`, done.documents)
    .zadd(LIST, Date.now(), b.id)
    .exec();
}

/** Pages kept on the storage, at their places in the batch. */
export async function pagesKept(redis: Redis, batch: string, places: number[]): Promise<void> {
  const m = redis.multi();
  for (const p of places) m.setbit(`${PREFIX}${batch}:pages`, p, 1);
  await m.exec();
}

/** A page just read, for the rate. */
export async function pageRead(redis: Redis, batch: string): Promise<void> {
  await redis.multi().lpush(`${PREFIX}${batch}:recent`, Date.now()).ltrim(`${PREFIX}${batch}:recent`, 0, RATE_PAGES - 1).exec();
}

export async function documentDone(redis: Redis, batch: string, place: number, doc: string): Promise<void> {
  await redis.multi().setbit(`${PREFIX}${batch}:documents`, place, 1).hdel(`${PREFIX}${batch}:failed`, doc).exec();
}

export async function documentFailed(redis: Redis, batch: string, doc: string, reason: string): Promise<void> {
  await redis.hset(`${PREFIX}${batch}:failed`, doc, reason.split('\n')[0]!.slice(0, 500));
}

/** The documents of a batch that failed, by name. */
export async function failedDocuments(redis: Redis, batch: string): Promise<Set<string>> {
  return new Set(await redis.hkeys(`${PREFIX}${batch}:failed`));
}

/** Forgets a document's failure (it is queued again). */
export async function documentRetried(redis: Redis, batch: string, doc: string): Promise<void> {
  await redis.hdel(`${PREFIX}${batch}:failed`, doc);
}

/** Every batch's id, the one added (or added again) last first. */
export async function batchIds(redis: Redis): Promise<string[]> {
  return redis.zrevrange(LIST, 0, -1);
}

/** Forgets a batch: its record, counts, rate and failures, and its place in the list. */
export async function forgetBatch(redis: Redis, id: string): Promise<void> {
  await redis.multi()
    .del(PREFIX + id, `${PREFIX}${id}:pages`, `${PREFIX}${id}:documents`, `${PREFIX}${id}:recent`, `${PREFIX}${id}:failed`)
    .zrem(LIST, id)
    .exec();
}

/** The newest batch's id, for a status asked without one. */
export async function latestBatch(redis: Redis): Promise<string | null> {
  const [id] = await redis.zrevrange(LIST, 0, 0);
  return id ?? null;
}

/** Pages per second over `times` (ms, newest first), or null. */
export function recentRate(times: number[], now: number): number | null {
  if (times.length < 2 || now - times[0]! > RATE_STALE_MS) return null;
  const span = (times[0]! - times.at(-1)!) / 1000;
  return span > 0 ? (times.length - 1) / span : null;
}

export async function batchStatus(redis: Redis, id: string): Promise<BatchStatus | null> {
  const [h, donePages, doneDocuments, recent, failed] = await Promise.all([
    redis.hgetall(PREFIX + id), redis.bitcount(`${PREFIX}${id}:pages`), redis.bitcount(`${PREFIX}${id}:documents`),
    redis.lrange(`${PREFIX}${id}:recent`, 0, -1), redis.hgetall(`${PREFIX}${id}:failed`),
  ]);
  if (!h.out) return null;
  return {
    id, out: h.out, flags: JSON.parse(h.flags!) as string[], outputs: JSON.parse(h.outputs!) as BatchRecord['outputs'],
    documents: Number(h.documents), pages: Number(h.pages), donePages, doneDocuments, added: h.added!,
    pagesPerSecond: recentRate(recent.map(Number), Date.now()),
    failed: Object.entries(failed).map(([doc, reason]) => ({ doc, reason })).sort((a, b) => a.doc.localeCompare(b.doc)),
  };
}
