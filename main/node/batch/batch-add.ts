// `npm run batch -- add <files or folders...> -o <folder> [--root DIR] [--json] [--hocr] [decode options]`: a
// batch of documents queued for the workers. Every document is read once here, for its content hash and its
// page count; one that cannot be opened (not a document, a page too large) is listed as failed with its
// reason at once and the rest are queued. Jobs are named by the batch, the document's content and its first
// page, so adding the same files with the same options again queues nothing that is queued or read already.
import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { readInput } from '../input-file';
import { openDocument } from '../pipeline';
import { decodeSettings, documentKey, insideRoot, PAGES_PER_JOB, sha256, type PageJob } from './batch-job';
import { documentFailed, recordBatch } from './batch-state';
import { PageStore } from './page-store';

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

export async function addBatch(redis: Redis, queue: Queue, request: AddRequest): Promise<AddResult> {
  const root = resolve(request.root);
  const settings = decodeSettings(request.flags);
  const outFolder = insideRoot(root, relative(root, resolve(request.out)));
  const documents = request.inputs.flatMap((input) => {
    insideRoot(root, relative(root, resolve(input)));
    return documentsOf(resolve(input), outFolder);
  });
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
  const jobs: Array<{ name: string; data: PageJob; opts: { jobId: string } }> = [];
  let pagesDone = 0;
  let documentsDone = 0;
  for (const d of read) {
    const key = documentKey(d.hash, settings.key);
    const store = new PageStore(join(root, d.out), key);
    if (store.assembled()) documentsDone++;
    for (let first = 0; first < d.pageCount; first += PAGES_PER_JOB) {
      const last = Math.min(d.pageCount, first + PAGES_PER_JOB) - 1;
      let done = 0;
      for (let p = first; p <= last; p++) if (store.has(p)) done++;
      pagesDone += done;
      if (done === last - first + 1 && store.assembled()) continue;
      jobs.push({
        name: 'pages',
        data: { v: 1, batch, doc: d.rel, hash: d.hash, pages: [first, last], pageCount: d.pageCount, out: d.out, flags: request.flags, outputs: request.outputs },
        opts: { jobId: `${batch}-${key}-${first}` },
      });
    }
  }
  const pages = read.reduce((n, d) => n + d.pageCount, 0);
  await recordBatch(redis, {
    id: batch, out: outRel, flags: request.flags, outputs: request.outputs, documents: read.length + failed.length, pages, added: new Date().toISOString(),
  }, { pages: pagesDone, documents: documentsDone });
  for (const f of failed) await documentFailed(redis, batch, f.doc, f.reason);
  for (let i = 0; i < jobs.length; i += 1000) await queue.addBulk(jobs.slice(i, i + 1000));
  return { batch, documents: read.length, pages, pagesDone, jobs: jobs.length, failed };
}
