// `npm run batch -- add <files or folders...> -o <folder> [--root DIR] [--json] [--hocr] [decode options]`: a
// batch of documents queued for the workers. Every document is read once here, for its content hash and its
// page count; one that cannot be opened (not a document, a page too large) is listed as failed with its
// reason at once and the rest are queued. Jobs are named by the batch, the document's place in it and its
// first page, so adding the same files with the same options again queues nothing that is queued or done
// already, and queues again what is missing from the storage: pages, and outputs (a deleted Markdown).
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { readInput } from '../inputs/input-file';
import { openDocument } from '../pipeline';
import { decodeSettings, documentKey, insideRoot, PAGES_PER_JOB, sha256, type PageJob } from './batch-job';
import { bitmap, documentFailed, documentRetried, failedDocuments, recordBatch } from './batch-state';
import { outputNames, STORE_FOLDER } from './page-store';

const DOCUMENT_EXTENSIONS = new Set(['.pdf', '.png', '.jpg', '.jpeg', '.tif', '.tiff']);
export interface AddRequest {
  root: string;
  inputs: string[];
  out: string;
  outputs: { json: boolean; hocr: boolean };
  flags: string[];
}

export interface AddResult {
  batch: string;
  /** Documents found, those not added (failed) among them. */
  documents: number;
  pages: number;
  /** Pages read already (by an earlier add of the same documents and options). */
  pagesDone: number;
  jobs: number;
  failed: Array<{ doc: string; reason: string }>;
}

/** The documents an input names: itself, or a folder's documents (its subfolders too), each with its name under the input. */
function documentsOf(input: string, outFolder: string): Array<{ path: string; name: string }> {
  if (!statSync(input).isDirectory()) return [{ path: input, name: basename(input) }];
  const found: Array<{ path: string; name: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (resolve(path) !== outFolder && entry.name !== '.saccade-pages') walk(path);
      } else if (entry.isFile() && DOCUMENT_EXTENSIONS.has(extname(entry.name).toLowerCase())) {
        found.push({ path, name: relative(input, path) });
      }
    }
  };
  walk(input);
  return found;
}

/** A path the operator gave, which must lie under the root (links resolved); one line naming --root where not. */
function underRoot(root: string, path: string): string {
  try {
    return insideRoot(root, relative(root, resolve(path)));
  } catch {
    throw new Error(`${path} is not under the root ${root}: documents and outputs are named from a root every machine shares; give --root a folder that holds them both`);
  }
}

export async function addBatch(redis: Redis, queue: Queue, request: AddRequest): Promise<AddResult> {
  const root = realpathSync(resolve(request.root));
  const settings = decodeSettings(request.flags);
  const outFolder = underRoot(root, request.out);
  const documents = request.inputs.flatMap((input) => documentsOf(underRoot(root, input), outFolder));
  const used = new Set<string>();
  const failed: AddResult['failed'] = [];
  const read: Array<{ rel: string; hash: string; pageCount: number; out: string }> = [];
  for (const { path, name } of documents) {
    const rel = relative(root, path);
    try {
      insideRoot(root, rel);
      const bytes = readInput(path);
      const doc = await openDocument(basename(path), bytes);
      const pageCount = doc.info.pages.length;
      doc.close();
      // Outputs keep the documents' names under their folder, made unique as `npm run ocr` makes them.
      const stem = name.slice(0, name.length - extname(name).length);
      let out = stem;
      for (let k = 2; used.has(out); k++) out = `${stem}-${k}`;
      used.add(out);
      read.push({ rel, hash: sha256(bytes), pageCount, out: relative(root, join(outFolder, out)) });
    } catch (err) {
      failed.push({ doc: rel, reason: (err as Error).message.replace(`${basename(path)}: `, '') });
    }
  }
  const outRel = relative(root, outFolder);
  const batch = sha256(JSON.stringify([outRel, request.outputs, settings.key, read.map((d) => [d.rel, d.hash, d.out])])).slice(0, 16);
  const failedBefore = await failedDocuments(redis, batch);
  const jobs: Array<{ name: string; data: PageJob; opts: { jobId: string } }> = [];
  const pagesDone: number[] = [];
  const documentsDone: number[] = [];
  let firstPage = 0;
  for (const [index, d] of read.entries()) {
    // What is on the storage now, not what was counted before: a page or an output moved away is done again.
    const key = documentKey(d.hash, settings.key);
    const folder = join(root, dirname(d.out));
    const written = outputNames({ stem: basename(d.out), ...request.outputs }).every((name) => existsSync(join(folder, name)));
    if (written) documentsDone.push(index);
    const queued = jobs.length;
    for (let first = 0; first < d.pageCount; first += PAGES_PER_JOB) {
      const last = Math.min(d.pageCount, first + PAGES_PER_JOB) - 1;
      let done = 0;
      for (let p = first; p <= last; p++) {
        if (existsSync(join(folder, STORE_FOLDER, key, `${p}.json`))) {
          pagesDone.push(firstPage + p);
          done++;
        }
      }
      // A document with every page kept but an output missing gets its last job again, which writes it.
      if (done === last - first + 1 && (written || last < d.pageCount - 1 || jobs.length > queued)) continue;
      jobs.push({
        name: 'pages',
        data: { v: 2, batch, doc: d.rel, hash: d.hash, pages: [first, last], pageCount: d.pageCount, place: [index, firstPage], out: d.out, flags: request.flags, outputs: request.outputs },
        opts: { jobId: `${batch}-${index}-${first}` },
      });
    }
    // A document that failed before is tried again: its failed jobs would keep the new ones out (same ids).
    if (jobs.length > queued && failedBefore.has(d.rel)) {
      for (const job of jobs.slice(queued)) if ((await queue.getJobState(job.opts.jobId)) === 'failed') await queue.remove(job.opts.jobId);
      await documentRetried(redis, batch, d.rel);
    }
    firstPage += d.pageCount;
  }
  await recordBatch(redis, {
    id: batch, out: outRel, flags: request.flags, outputs: request.outputs, documents: read.length + failed.length, pages: firstPage, added: new Date().toISOString(),
  }, { pages: bitmap(pagesDone, firstPage), documents: bitmap(documentsDone, read.length) });
  for (const f of failed) await documentFailed(redis, batch, f.doc, f.reason);
  for (let i = 0; i < jobs.length; i += 1000) await queue.addBulk(jobs.slice(i, i + 1000));
  return { batch, documents: read.length + failed.length, pages: firstPage, pagesDone: pagesDone.length, jobs: jobs.length, failed };
}
