// A document's pages as the batch workers read them, on the storage every machine shares, beside the outputs:
// <out folder>/.saccade-pages/<document key>/<page>.json and the pages' figures, p<page>-figure<n>.png. The
// key is the document's content and decode settings (batch-job.ts documentKey), so two documents with the same
// bytes in one folder share their pages, and each is written under its own name. A page's file is written to a
// temporary file and linked into place, so that a page read twice (a job delivered again after its worker
// died) is kept once and a reader never sees half of it. When the last page lands, the document's outputs are
// made from its pages in order (each record checked as data: page-record.ts) in the store, then put in place:
// figures first and the Markdown last, so a Markdown is never there without its figures. Everything is written
// through the folders opened when the job started (folder-handle.ts). An output never replaces a file that this
// store did not write (the CLI's rule without --force): each one's size and hash are kept beside the pages.
import { closeSync, constants, existsSync, fstatSync, linkSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { DecodeOptions } from '../../../common/engine-types';
import type { DocumentInfo } from '../../../common/protocol';
import { HOCR_TAIL, hocrHead, hocrPage } from '../exports/hocr';
import { MarkdownWriter } from '../pipeline/write/markdown';
import { sha256 } from './batch-job';
import type { FolderHandle } from './folder-handle';
import { checkRecord, figureName, MAX_RECORD_BYTES, type PageRecord } from './page-record';

export const STORE_FOLDER = '.saccade-pages';
/** The largest figure a worker reads back from the store: a page's picture as a PNG. */
const MAX_FIGURE_BYTES = 256 * 1024 * 1024;

let temporary = 0;

/** A file's bytes, opened without following a link; null where it is not a plain file or `wanted` refuses its size. */
function readChecked(path: string, wanted: (size: number) => boolean): Buffer | null {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || !wanted(st.size)) return null;
    const bytes = Buffer.alloc(st.size);
    let at = 0;
    for (let n = 1; at < st.size && n > 0; at += n) n = readSync(fd, bytes, at, st.size - at, at);
    return bytes.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** A file kept in the store, at most `limit` bytes. */
function readKept(path: string, limit: number, shown: string): Buffer {
  const bytes = readChecked(path, (size) => size <= limit);
  if (bytes === null) throw new Error(`${shown} is not a file of at most ${limit} bytes`);
  return bytes;
}

export interface DocumentOutputs {
  /** The outputs' name without extension, in the output folder. */
  stem: string;
  json: boolean;
  hocr: boolean;
}

export class PageStore {
  /** `folder`: the document's output folder; the store is made in it where missing. */
  constructor(private readonly folder: FolderHandle, private readonly store: FolderHandle, readonly key: string) {}

  static open(folder: FolderHandle, key: string): PageStore {
    const pages = folder.sub(STORE_FOLDER, true);
    try {
      return new PageStore(folder, pages.sub(key, true), key);
    } finally {
      pages.close();
    }
  }

  close(): void {
    this.store.close();
  }

  has(page: number): boolean {
    return existsSync(this.store.at(`${page}.json`));
  }

  page(page: number): PageRecord {
    const bytes = readKept(this.store.at(`${page}.json`), MAX_RECORD_BYTES, `the kept page ${page + 1}`);
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new Error(`the kept page ${page + 1} is not JSON`);
    }
    return checkRecord(value, page);
  }

  /** Keeps a file in the store under `name` unless it is there; false when it was (another delivery's). */
  private keep(name: string, data: string | Uint8Array): boolean {
    const tmp = this.store.at(`${name}.${process.pid}.${++temporary}.tmp`);
    try {
      writeFileSync(tmp, data, { flag: 'wx' });
      linkSync(tmp, this.store.at(name));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  /** Keeps a page; false when it was there already (read by another delivery of its job). */
  put(page: number, record: PageRecord): boolean {
    return this.keep(`${page}.json`, JSON.stringify(record));
  }

  /** Keeps a page's figure; its name in the store, which the page's record names. */
  putFigure(page: number, index: number, png: Uint8Array): string {
    const name = figureName(page, index);
    this.keep(name, png);
    return name;
  }

  complete(pageCount: number): boolean {
    for (let p = 0; p < pageCount; p++) if (!this.has(p)) return false;
    return true;
  }

  /** Whether the document's outputs are in its folder. */
  written(outputs: DocumentOutputs): boolean {
    return outputNames(outputs).every((name) => existsSync(this.folder.at(name)));
  }

  /**
   * Writes the document's outputs from its pages (each read once), as `npm run ocr` would have: its figures, then
   * the hOCR and JSON where asked, then the Markdown. Another worker may write the same document at the same
   * moment: both write the same bytes.
   */
  assemble(read: Omit<DocumentInfo, 'pages'>, pageCount: number, options: DecodeOptions, outputs: DocumentOutputs): void {
    const pages = Array.from({ length: pageCount }, (_, p) => this.page(p));
    const doc: DocumentInfo = { ...read, pages: pages.map((p) => p.info) };
    const figure = (image: string) => `${outputs.stem}-${image}`;
    for (const p of pages) {
      for (const r of p.recognised) {
        if (r.image) this.publish(figure(r.image), readKept(this.store.at(r.image), MAX_FIGURE_BYTES, `the kept figure ${r.image}`));
      }
    }
    if (outputs.hocr) {
      const body = pages.map((p) => hocrPage(p.info, p.hocr.regions.map(({ kind, box, lines }) => ({ region: { id: '', page: p.info.index, kind, box, order: null }, lines })), p.hocr.angle));
      this.publish(`${outputs.stem}.hocr`, hocrHead(doc) + body.join('') + HOCR_TAIL);
    }
    if (outputs.json) {
      this.publish(`${outputs.stem}.json`,
        `{"document":${JSON.stringify(doc)},"options":${JSON.stringify(options)},"pages":[${pages.map((p) => JSON.stringify(p.json)).join(',')}],"cancelled":false}`);
    }
    const writer = new MarkdownWriter();
    this.publish(`${outputs.stem}.md`, pages.map((p) => writer.page(p.info.index, p.recognised.map((r) => (r.image ? { ...r, image: figure(r.image) } : r)))).join(''));
  }

  /**
   * Puts `data` in the output folder as `name`, whole: made in the store, then linked into place where nothing
   * is there, or renamed over what is there only if it is what this store wrote there before (its size and
   * hash, kept in the store) or the same bytes. Anything else there is left alone, with one line.
   */
  private publish(name: string, data: string | Uint8Array): void {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const note = this.store.at(`wrote-${sha256(name).slice(0, 32)}`);
    const fingerprint = (b: Uint8Array) => `${b.length} ${sha256(b)}`;
    const wrote = existsSync(note) ? readKept(note, 200, `the note of ${name}`).toString() : null;
    const now = fingerprint(bytes);
    const tmp = this.store.at(`${process.pid}.${++temporary}.tmp`);
    try {
      writeFileSync(tmp, bytes, { flag: 'wx' });
      try {
        linkSync(tmp, this.folder.at(name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        // Only a file of the size written before, or of this size, is read to be compared.
        let there: Buffer | null = null;
        try {
          there = readChecked(this.folder.at(name), (size) => size === bytes.length || (wrote !== null && wrote.startsWith(`${size} `)));
        } catch {
          // Not a file that can be opened without following a link: not ours.
        }
        const was = there === null ? null : fingerprint(there);
        if (was !== now) {
          if (was === null || was !== wrote) throw new Error(`${name} is there already and this batch did not write it: it is not replaced (move it away and add the batch again)`);
          renameSync(tmp, this.folder.at(name));
        }
      }
      const noteTmp = this.store.at(`${process.pid}.${++temporary}.tmp`);
      writeFileSync(noteTmp, now, { flag: 'wx' });
      renameSync(noteTmp, note);
    } finally {
      rmSync(tmp, { force: true });
    }
  }
}

/** A document's output files' names in its folder: the Markdown, and the hOCR and JSON where asked. */
export function outputNames(outputs: DocumentOutputs): string[] {
  return [`${outputs.stem}.md`, ...(outputs.hocr ? [`${outputs.stem}.hocr`] : []), ...(outputs.json ? [`${outputs.stem}.json`] : [])];
}
