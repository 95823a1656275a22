// The page pipeline's public surface: open a user's file, decode its pages to Markdown with the engine, and
// the bundled samples.
import { randomUUID } from 'node:crypto';
import type { DecodeOptions, DecodeResult } from '../../../common/engine-types';
import type { DocumentInfo, SessionEvent } from '../../../common/protocol';
import type { NativeModel } from '../native-addon';
import { decodePages, type FigureSink } from './decode-document';
import type { PageAnalysisOptions } from './page-analysis';
import { openPageSource, type PageSource } from './page-source';

export { listSamples, readSample } from './samples';
export { DEFAULT_PAGE_ANALYSIS, type PageAnalysisOptions } from './page-analysis';
export { firstLineViews } from './line-views';
export type { FigureSink } from './decode-document';

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

export async function decodeDocument(
  doc: OpenedDocument,
  model: NativeModel,
  options: DecodeOptions,
  pages: number[] | null,
  emit: (events: SessionEvent[]) => void,
  signal: AbortSignal,
  analysis?: PageAnalysisOptions,
  figures?: FigureSink,
): Promise<DecodeResult & { markdown: string }> {
  const source = sources.get(doc);
  if (!source) throw new Error('the document was not opened by openDocument');
  return decodePages({ info: doc.info, source }, model, options, pages, emit, signal, analysis, figures);
}
