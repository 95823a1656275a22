// The app's searchable PDF: the document's pages with an invisible text layer of the user's edited text, each
// word where the decode behind the text read it (edited-words.ts), built by pdf-lib in the bounded worker the
// CLI's PDF uses (searchable-pdf-output.ts). The window sends the text and the decode it shows: they are
// what the user sees, whatever the engine ran (a saved run replayed after a reload, pages read again after a
// crash), and both are hostile input, bounded at the edge (common/protocol.ts) and in every step here.
import { MAX_EXPORT_WORD_CHARS, MAX_SEARCHABLE_PDF_BYTES, type DocumentInfo, type SessionEvent } from '../../../common/protocol';
import { editedPages, plainWords } from './edited-words';
import { RunRecorder } from '../engine/run-recorder';
import { SearchablePdfBuilder } from './searchable-pdf-output';

/** Exports under way in this engine process: one at a time, each holds a worker of up to 1 GB. */
let exporting = false;

/**
 * The characters editedPages lays out of `text`: its lines' plain words (a page break's line has none), each
 * with the space after it.
 */
function laidOutChars(text: string): number {
  let chars = 0;
  for (const line of text.split('\n')) for (const word of plainWords(line, true)) chars += word.length + 1;
  return chars;
}

export async function editedSearchablePdf(doc: DocumentInfo, input: Uint8Array, events: readonly SessionEvent[], text: string): Promise<Uint8Array> {
  if (exporting) throw new Error('Another window or tab is exporting a searchable PDF; export this one when it has finished.');
  exporting = true;
  try {
    // What is laid out costs the engine by the character (common/protocol.ts): counted before any is.
    const chars = laidOutChars(text);
    if (chars > MAX_EXPORT_WORD_CHARS) {
      throw new Error(`the edited text's words hold ${chars} characters, more than the ${MAX_EXPORT_WORD_CHARS} an export lays out`);
    }
    const recorder = new RunRecorder();
    recorder.record([...events]);
    const pageCount = doc.pages.length;
    const decoded = doc.pages.map((p) => ({ page: p.index, textAngle: recorder.pageTextAngle(p.index), regions: recorder.pageWords(p.index) }));
    const pages = editedPages(decoded, text, doc.pages);
    const builder = new SearchablePdfBuilder(doc, input);
    try {
      for (let index = 0; index < pageCount; index++) {
        const regions = pages.get(index) ?? [];
        // A PDF's pages without words stay as they are; an image's page is made either way.
        if (regions.length > 0 || doc.format !== 'pdf') await builder.page(index, recorder.pageTextAngle(index), regions);
      }
      const bytes = await builder.save();
      if (bytes.length > MAX_SEARCHABLE_PDF_BYTES) throw new Error(`the searchable PDF would be ${Math.round(bytes.length / 2 ** 20)} MB, more than the ${MAX_SEARCHABLE_PDF_BYTES / 2 ** 20} MB an export may be`);
      return bytes;
    } catch (err) {
      builder.abandon('the export failed');
      throw err;
    }
  } finally {
    exporting = false;
  }
}
