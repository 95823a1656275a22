// A document's pages as the batch workers read them, on the storage every machine shares, beside the outputs:
// <out folder>/.saccade-pages/<document key>/<page>.json, each what its page adds to the Markdown, the hOCR and
// the JSON. A page's file is named by the document's content and decode settings (batch-job.ts
// documentKey), written to a temporary file and linked into place, so that a page read twice (a job
// delivered again after its worker died) is kept once and a reader never sees half of it. When the last page
// lands, the document's outputs are joined from its pages in order and renamed into place: the Markdown
// `npm run ocr` writes for the document, byte for byte.
import { closeSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DecodeOptions } from '../../../common/engine-types';
import type { DocumentInfo, PageInfo } from '../../../common/protocol';
import { HOCR_TAIL, hocrHead } from '../hocr';
import { MarkdownWriter, type RecognisedRegion } from '../pipeline/write/markdown';

export interface PageRecord {
  info: PageInfo;
  /** What its Markdown is written from (DecodedPage.recognised). */
  recognised: RecognisedRegion[];
  /** Its hOCR page (hocrPage). */
  hocr: string;
  /** Its entry in the JSON's pages (RunRecorder.pageJSON); null when the batch writes no JSON. */
  json: unknown;
}

let temporary = 0;

/** Writes `data` to `path` whole or not at all: a temporary file beside it, then renamed over it. */
export function writeAtomically(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${++temporary}.tmp`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}

export class PageStore {
  readonly dir: string;

  /** `outStem`: the document's outputs without extension (absolute, inside the root). */
  constructor(private readonly outStem: string, readonly key: string) {
    this.dir = join(dirname(outStem), '.saccade-pages', key);
  }

  private pagePath(page: number): string {
    return join(this.dir, `${page}.json`);
  }

  has(page: number): boolean {
    return existsSync(this.pagePath(page));
  }

  page(page: number): PageRecord {
    return JSON.parse(readFileSync(this.pagePath(page), 'utf8')) as PageRecord;
  }

  /** Keeps a page; false when it was there already (read by another delivery of its job). */
  put(page: number, record: PageRecord): boolean {
    mkdirSync(this.dir, { recursive: true });
    const tmp = `${this.pagePath(page)}.${process.pid}.${++temporary}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify(record));
      linkSync(tmp, this.pagePath(page));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  /** Whether its outputs were written (by assemble). */
  assembled(): boolean {
    return existsSync(join(this.dir, 'assembled'));
  }

  complete(pageCount: number): boolean {
    for (let p = 0; p < pageCount; p++) if (!this.has(p)) return false;
    return true;
  }

  /**
   * Writes the document's outputs from its pages (each read once), as `npm run ocr` would have: the Markdown,
   * and the hOCR and JSON where asked. True the first time (another worker may assemble the same document at
   * the same moment; both write the same bytes).
   */
  assemble(read: Omit<DocumentInfo, 'pages'>, pageCount: number, options: DecodeOptions, outputs: { json: boolean; hocr: boolean }): boolean {
    const pages = Array.from({ length: pageCount }, (_, p) => this.page(p));
    const doc: DocumentInfo = { ...read, pages: pages.map((p) => p.info) };
    const writer = new MarkdownWriter();
    writeAtomically(`${this.outStem}.md`, pages.map((p) => writer.page(p.info.index, p.recognised)).join(''));
    if (outputs.hocr) writeAtomically(`${this.outStem}.hocr`, hocrHead(doc) + pages.map((p) => p.hocr).join('') + HOCR_TAIL);
    if (outputs.json) {
      writeAtomically(`${this.outStem}.json`,
        `{"document":${JSON.stringify(doc)},"options":${JSON.stringify(options)},"pages":[${pages.map((p) => JSON.stringify(p.json)).join(',')}],"cancelled":false}`);
    }
    try {
      const fd = openSync(join(this.dir, 'assembled'), 'wx');
      writeSync(fd, new Date().toISOString());
      closeSync(fd);
      return true;
    } catch {
      return false;
    }
  }
}
