// A worker thread for work on a hostile file whose cost no library bounds itself (pdf.js parsing a PDF, pdf-lib
// rewriting one): its JS heap is capped, each request has a time, and a worker past either is stopped, failing
// what waits on it with one line while the process and its other documents go on. Requests go one at a time.
import { basename, dirname, join } from 'node:path';
import { parentPort, Worker } from 'node:worker_threads';

/** Every request carries its id back in its reply; a failed one carries `error` instead of its result. */
export type Envelope<T> = T & { id: number };
export type ErrorReply = { id: number; error: string };

/**
 * Bundled, a worker is an entry point in out/main (this code runs from there or from out/main/chunks). From
 * source, run through tsx (the tests), it is the .ts file `source`, which the worker loads through tsx too.
 */
function startWorker(entry: string, source: string, heapMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: heapMb };
  if (!__filename.endsWith('.ts')) {
    return new Worker(join(basename(__dirname) === 'chunks' ? dirname(__dirname) : __dirname, `${entry}.js`), { resourceLimits });
  }
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { eval: true, resourceLimits });
}

type Pending = { resolve(reply: unknown): void; reject(err: Error): void };

export class BoundedWorker<Call extends object, Reply extends object> {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private ids = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Why the worker is gone, once it is. */
  private ended: string | null = null;

  /**
   * `entry`: the worker's entry point name in the build; `source`: its .ts file; `what`: what it does, for
   * the one line a failure gives ("reading it", "writing the PDF").
   */
  constructor(entry: string, source: string, private readonly heapMb: number, private readonly what: string) {
    this.worker = startWorker(entry, source, heapMb);
    // An idle worker does not keep the process alive; a request's timer does while it waits.
    this.worker.unref();
    this.worker.on('message', (reply: Envelope<Reply> | ErrorReply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (!p) return;
      if ('error' in reply) p.reject(new Error(reply.error));
      else p.resolve(reply);
    });
    this.worker.on('error', (err: Error & { code?: string }) => {
      this.end(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `${this.what} needs more than ${this.heapMb} MB of memory` : `${this.what} failed (${err.message})`);
    });
    this.worker.on('exit', (code) => this.end(`${this.what} stopped (exit code ${code})`));
  }

  /** Sends a request once the ones before it are answered; past `ms` the worker is stopped. */
  request(call: Call, ms: number, transfer: ArrayBuffer[] = []): Promise<Reply> {
    const next = this.queue.then(() => new Promise<Reply>((resolve, reject) => {
      if (this.ended) return reject(new Error(this.ended));
      const id = ++this.ids;
      const timer = setTimeout(() => this.end(`${this.what} takes more than ${ms / 1000} s`), ms);
      this.pending.set(id, {
        resolve: (reply) => { clearTimeout(timer); resolve(reply as Reply); },
        reject: (err) => { clearTimeout(timer); reject(err); },
      });
      this.worker.postMessage({ ...call, id }, transfer);
    }));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Stops the worker; what is waiting fails with `why`. */
  end(why: string): void {
    this.ended ??= why;
    for (const p of this.pending.values()) p.reject(new Error(this.ended));
    this.pending.clear();
    void this.worker.terminate();
  }
}

/** What a reply carries under `key`: the one field that says which request it answers. */
export function replyField<R extends object, K extends string>(reply: R, key: K): Extract<R, Record<K, unknown>>[K] {
  if (!(key in reply)) throw new Error(`the worker answered without its ${key}`);
  return (reply as Extract<R, Record<K, unknown>>)[key];
}

/**
 * The worker's side: answers each request with what `handle` returns (and moves the buffers it names), or
 * with the error it throws. Requests are handled one at a time, in order.
 */
export function serveRequests<Call extends object, Reply extends object>(
  handle: (call: Call) => Promise<{ reply: Reply; transfer?: ArrayBuffer[] }>,
): void {
  const port = parentPort;
  if (!port) throw new Error('this module runs as a worker thread');
  let queue: Promise<unknown> = Promise.resolve();
  port.on('message', (request: Envelope<Call>) => {
    queue = queue.then(async () => {
      try {
        const { reply, transfer } = await handle(request);
        port.postMessage({ ...reply, id: request.id }, transfer ?? []);
      } catch (err) {
        port.postMessage({ id: request.id, error: (err as Error).message } satisfies ErrorReply);
      }
    });
  });
}
