// A searchable PDF of one input, built page by page by pdf-lib in a bounded worker (searchable-pdf.ts,
// searchable-pdf-worker.ts). The CLI's is built as pages are read and written at the end all at once: to a
// temporary file beside it, then moved into place, so that no reader of the folder sees half a PDF. The app's
// is built from the user's edited text when asked for (edited-pdf.ts). The output holds every page of the
// input, so it is built whole before it is written; a PDF input's pages are its own.
import { createRequire } from 'node:module';
import { linkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DocumentInfo, PageInfo } from '../../../common/protocol';
import { BoundedWorker, replyField } from '../inputs/bounded-worker';
import type { HocrRegion } from './hocr';
import { sharp } from '../inputs/image-codec';
import { declaredDpi, MAX_INPUT_PIXELS } from '../pipeline/source/page-source';
import type { PageImage } from './searchable-pdf';
import type { SearchablePdfCall, SearchablePdfReply } from './searchable-pdf-worker';

/** Where an image says nothing of its resolution: the most common scanning resolution. */
const DEFAULT_DPI = 300;
/** pdf-lib holds a PDF input parsed whole, and the output until it is saved; streams live outside the heap. */
const HEAP_MB = 1024;
const STEP_MS = 120_000;

function fontFile(): string {
  return createRequire(__filename).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
}

/** An image input's page as the PDF shows it: the file itself where it can be (a JPEG as it is), else PNG. */
async function pageImage(format: DocumentInfo['format'], bytes: Uint8Array, index: number): Promise<PageImage> {
  const meta = await sharp(bytes, { page: index, limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  const dpi = declaredDpi(meta.density) ?? DEFAULT_DPI;
  // Turned by its orientation tag, an image is drawn as the page was read; a PDF viewer ignores the tag.
  const upright = (meta.orientation ?? 1) === 1;
  if (format === 'jpeg' && upright) return { kind: 'jpeg', bytes, dpi };
  if (format === 'png' && upright) return { kind: 'png', bytes, dpi };
  const png = await sharp(bytes, { page: index, limitInputPixels: MAX_INPUT_PIXELS }).autoOrient().png().toBuffer();
  // Its own buffer, to be moved to the worker.
  return { kind: 'png', bytes: new Uint8Array(png), dpi };
}

/**
 * A searchable PDF of one input, built page by page by pdf-lib in a bounded worker, and saved to bytes once
 * every page is in. The CLI writes them to a file (SearchablePdfOutput); the app hands them to its user.
 */
export class SearchablePdfBuilder {
  private readonly worker = new BoundedWorker<SearchablePdfCall, SearchablePdfReply>(
    'searchable-pdf-worker', join(__dirname, 'searchable-pdf-worker.ts'), HEAP_MB, 'writing the searchable PDF');
  private readonly opened: Promise<unknown>;
  private readonly added = new Set<number>();

  constructor(private readonly doc: DocumentInfo, private readonly input: Uint8Array) {
    // pdf-lib keeps the buffer it parses: the worker gets its own copy, moved rather than copied again.
    const copy = doc.format === 'pdf' ? input.slice() : null;
    this.opened = this.worker.request({ op: 'open', pdf: copy, fontFile: fontFile() }, STEP_MS, copy ? [copy.buffer as ArrayBuffer] : []);
  }

  /** `textAngle`: the direction the page's text runs in as read (PageLayoutEvent.textAngle). */
  async page(index: number, textAngle: number, regions: HocrRegion[]): Promise<void> {
    await this.opened;
    const image = this.doc.format === 'pdf' ? null : await pageImage(this.doc.format, this.input, index);
    await this.addPage(index, this.doc.pages[index]!, textAngle, regions, image);
  }

  /**
   * Builds the pages not read (a cancelled document keeps every page, without words) and gives the PDF's
   * bytes; the worker ends.
   */
  async save(): Promise<Uint8Array> {
    await this.opened;
    if (this.doc.format !== 'pdf') {
      for (const page of this.doc.pages) if (!this.added.has(page.index)) await this.addPage(page.index, page, 0, [], await pageImage(this.doc.format, this.input, page.index));
    }
    const bytes = replyField(await this.worker.request({ op: 'save' }, STEP_MS), 'bytes');
    this.worker.end('the PDF is written');
    return bytes;
  }

  /** Stops building. */
  abandon(reason: string): void {
    this.worker.end(reason);
  }

  private async addPage(index: number, read: PageInfo, textAngle: number, regions: HocrRegion[], image: PageImage | null): Promise<void> {
    const transfer = image && image.bytes !== this.input ? [image.bytes.buffer as ArrayBuffer] : [];
    await this.worker.request({ op: 'page', index, read, textAngle, regions, image }, STEP_MS, transfer);
    this.added.add(index);
  }
}

/** The CLI's searchable PDF: built as pages are read, written to its file at the end all at once. */
export class SearchablePdfOutput {
  private readonly builder: SearchablePdfBuilder;

  constructor(doc: DocumentInfo, input: Uint8Array, private readonly path: string, private readonly force: boolean) {
    this.builder = new SearchablePdfBuilder(doc, input);
  }

  /** `textAngle`: the direction the page's text runs in as read (PageLayoutEvent.textAngle). */
  page(index: number, textAngle: number, regions: HocrRegion[]): Promise<void> {
    return this.builder.page(index, textAngle, regions);
  }

  /** Builds the pages not read (a cancelled document keeps every page, without words) and writes the file. */
  async finish(): Promise<void> {
    const bytes = await this.builder.save();
    const part = `${this.path}.part-${process.pid}`;
    try {
      writeFileSync(part, bytes, { flag: 'wx' });
      // Without --force an existing file is not replaced, even one that appeared since the plan was checked:
      // a link fails where a rename would replace.
      if (this.force) renameSync(part, this.path);
      else linkSync(part, this.path);
    } finally {
      rmSync(part, { force: true });
    }
  }

  /** Stops building; nothing is written. */
  abandon(): void {
    this.builder.abandon('the document failed');
  }
}
