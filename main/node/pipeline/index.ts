// The page pipeline's public surface: open a user's file, decode its pages to Markdown with the engine, and
// the bundled samples. Its stages are its folders: source/ (files to page rasters), detect/ (the pretrained
// networks: lines, their direction, regions and their kinds), assemble/ (paragraphs, tables, reading order),
// read/ (line crops to the engine, one reading kept per line), write/ (Markdown, tables, word boxes).
import { randomUUID } from 'node:crypto';
import type { DocumentInfo } from '../../../common/protocol';
import type { NativeModel } from '../engine/native-addon';
import { decodePages, type DocumentRun } from './read/decode-document';
import type { PageReaders } from './read/page-readers';
import { openPageSource } from './source/page-source';
import type { PageSource } from './source/rendered-pages';

export { listSamples, readSample } from './source/samples';
export { DEFAULT_PAGE_ANALYSIS, type PageAnalysisOptions } from './read/page-analysis';
export { firstLineViews } from './read/line-views';
export type { DecodedPage, DocumentRun, FigureSink } from './read/decode-document';
export { PageReaders } from './read/page-readers';

export interface OpenedDocument {
  info: DocumentInfo;
  close(): void;
}

const sources = new WeakMap<OpenedDocument, PageSource>();

/** Reads the document's structure (page count and sizes); pixels are decoded only when a page is decoded. */
export async function openDocument(name: string, bytes: Uint8Array): Promise<OpenedDocument> {
  let source: PageSource;
  try {
    source = await openPageSource(bytes);
  } catch (err) {
    throw new Error(`${name}: ${(err as Error).message}`);
  }
  if (source.pages.length === 0) {
    source.close();
    throw new Error(`${name}: the document has no pages`);
  }
  const doc: OpenedDocument = {
    info: { docId: randomUUID(), name, format: source.format, pages: source.pages },
    close: () => source.close(),
  };
  sources.set(doc, source);
  return doc;
}

/** `engine`: the model that reads every page, or readers that read several pages at once. */
export async function decodeDocument(doc: OpenedDocument, engine: NativeModel | PageReaders, run: DocumentRun): Promise<{ cancelled: boolean }> {
  const source = sources.get(doc);
  if (!source) throw new Error('the document was not opened by openDocument');
  return decodePages({ info: doc.info, source }, engine, run);
}
