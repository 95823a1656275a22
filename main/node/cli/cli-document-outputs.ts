// One input's outputs, written as its pages are read rather than at the end: the Markdown (to its file or to
// standard output), the JSON and the hOCR. A page is written and forgotten before the next one is read, so a
// 2000-page PDF costs what one page costs. The files are opened when the first page is ready and ended well
// formed whatever happens: a cancelled or failed document keeps the pages it read, and says how it ended.
// The searchable PDF is the exception: it holds the input's pages, and is written whole at the end
// (searchable-pdf-output.ts), only for a document that did not fail. Figures appear with the document's end,
// those of the pages written (cli-figures.ts).
import { closeSync, openSync, writeSync } from 'node:fs';
import type { DecodeOptions } from '../../../common/engine-types';
import type { DocumentInfo, SessionEvent } from '../../../common/protocol';
import { StagedFigures } from './cli-figures';
import type { OutputFiles } from './cli-outputs';
import { HOCR_TAIL, hocrHead, hocrPage } from '../exports/hocr';
import type { DecodedPage, FigureSink } from '../pipeline';
import { SearchablePdfOutput } from '../exports/searchable-pdf-output';
import { RunRecorder } from '../engine/run-recorder';

interface OpenFiles {
  markdown: number | null;
  json: number | null;
  hocr: number | null;
}

export class DocumentOutputs {
  /** What the JSON, the hOCR and the PDF need of the page being read; nothing when none is asked for. */
  private readonly recorder: RunRecorder | null;
  private readonly pdf: SearchablePdfOutput | null;
  /** Beside a Markdown file only: its links are relative to it. */
  private readonly staged: StagedFigures | null;
  private files: OpenFiles | null = null;
  private closed = false;
  private written = 0;

  constructor(
    private readonly doc: DocumentInfo,
    private readonly paths: OutputFiles,
    private readonly options: DecodeOptions,
    /** Replace existing files; without it an output that appeared since the plan was checked is not replaced. */
    private readonly force: boolean,
    /** The input's bytes, which the searchable PDF is made of. */
    input: Uint8Array,
    /** Whether a path is an input's file, which no figure may replace. */
    isInput: (path: string) => boolean,
  ) {
    this.recorder = paths.json || paths.hocr || paths.pdf ? new RunRecorder() : null;
    this.pdf = paths.pdf ? new SearchablePdfOutput(doc, input, paths.pdf, force) : null;
    this.staged = paths.markdown ? new StagedFigures(paths.markdown, force, isInput) : null;
  }

  /** Where the document's figures are written; none without a Markdown file to link them. */
  get figures(): FigureSink | undefined {
    return this.staged?.sink;
  }

  /** Pages written so far. */
  get pagesWritten(): number {
    return this.written;
  }

  record(events: SessionEvent[]): void {
    this.recorder?.record(events);
  }

  async page(decoded: DecodedPage): Promise<void> {
    const words = this.paths.hocr || this.pdf ? this.recorder!.pageWords(decoded.page) : [];
    const textAngle = this.recorder?.pageTextAngle(decoded.page) ?? 0;
    await this.pdf?.page(decoded.page, textAngle, words);
    const files = this.open();
    if (files.markdown !== null) writeSync(files.markdown, decoded.markdown);
    else if (this.paths.stdout) process.stdout.write(decoded.markdown);
    if (files.json !== null) writeSync(files.json, (this.written > 0 ? ',' : '') + JSON.stringify(this.recorder!.pageJSON(decoded.page)));
    if (files.hocr !== null) writeSync(files.hocr, hocrPage(this.doc.pages[decoded.page]!, words, textAngle));
    this.staged?.pageWritten(decoded.page);
    this.recorder?.forget(decoded.page);
    this.written++;
  }

  /**
   * Ends every output. A document that failed before its first page was read leaves no files; one that failed
   * later keeps its pages and their figures, and its JSON names the error. The searchable PDF, written last, is
   * written only for a document that did not fail; a second call (after the PDF failed) only stops it.
   */
  async finish(end: { cancelled: boolean; error?: string }): Promise<void> {
    if (end.error !== undefined) this.pdf?.abandon();
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.files || end.error === undefined) {
        const files = this.open();
        try {
          if (files.json !== null) {
            writeSync(files.json, `],"cancelled":${end.cancelled}${end.error === undefined ? '' : `,"error":${JSON.stringify(end.error)}`}}`);
          }
          if (files.hocr !== null) writeSync(files.hocr, HOCR_TAIL);
        } finally {
          for (const fd of [files.markdown, files.json, files.hocr]) if (fd !== null) closeSync(fd);
        }
      }
      if (end.error === undefined) await this.pdf?.finish();
    } finally {
      // Once the Markdown is complete, whatever became of the rest: it links them.
      this.staged?.publish();
    }
  }

  private open(): OpenFiles {
    if (this.files) return this.files;
    const flag = this.force ? 'w' : 'wx';
    const files: OpenFiles = { markdown: null, json: null, hocr: null };
    try {
      if (this.paths.markdown) files.markdown = openSync(this.paths.markdown, flag);
      if (this.paths.json) {
        files.json = openSync(this.paths.json, flag);
        writeSync(files.json, `{"document":${JSON.stringify(this.doc)},"options":${JSON.stringify(this.options)},"pages":[`);
      }
      if (this.paths.hocr) {
        files.hocr = openSync(this.paths.hocr, flag);
        writeSync(files.hocr, hocrHead(this.doc));
      }
    } catch (err) {
      for (const fd of [files.markdown, files.json, files.hocr]) if (fd !== null) closeSync(fd);
      throw err;
    }
    this.files = files;
    return files;
  }
}
