// What a source makes of a user's file: its pages, each rendered on request. The PDF source (pdf-source.ts) and
// the image sources (page-source.ts) both return one.
import type { DocumentInfo, PageInfo } from '../../../../common/protocol';
import type { GrayImage } from '../gray-image';

export type DocumentFormat = DocumentInfo['format'];

export interface PageSource {
  format: DocumentFormat;
  pages: PageInfo[];
  /** Renders one page at its PageInfo size; the caller drops it when done. */
  render(index: number): Promise<GrayImage>;
  close(): void;
}
