// The searchable PDF's worker thread (started by cli-document-outputs.ts through bounded-worker.ts): pdf-lib
// parses a PDF input whole and holds the output until it is saved, so both run where their heap is bounded.
import type { PageInfo } from '../../../common/protocol';
import { serveRequests } from '../inputs/bounded-worker';
import type { HocrRegion } from './hocr';
import { SearchablePdf, type PageImage } from './searchable-pdf';

export type SearchablePdfCall =
  | { op: 'open'; pdf: Uint8Array | null; fontFile: string }
  | { op: 'page'; index: number; read: PageInfo; textAngle: number; regions: HocrRegion[]; image: PageImage | null }
  | { op: 'save' };

export type SearchablePdfReply = { pages: number } | { bytes: Uint8Array };

let pdf: SearchablePdf | null = null;

serveRequests<SearchablePdfCall, SearchablePdfReply>(async (call) => {
  if (call.op === 'open') {
    pdf = await SearchablePdf.open(call.pdf, call.fontFile);
    return { reply: { pages: pdf.pageCount } };
  }
  if (!pdf) throw new Error('no PDF is open');
  if (call.op === 'page') {
    await pdf.addPage(call.index, call.read, call.textAngle, call.regions, call.image);
    return { reply: { pages: pdf.pageCount } };
  }
  const bytes = await pdf.save();
  return { reply: { bytes }, transfer: [bytes.buffer as ArrayBuffer] };
});
