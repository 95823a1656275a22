// One document from standard input (`npm run ocr -- - -o out.md < scan.pdf`), bounded like a file: past the
// largest document Saccade opens the read stops and the document is refused, so an endless pipe costs no more.
import { MAX_DOCUMENT_BYTES } from '../../../common/protocol';

export async function readStandardInput(stream: NodeJS.ReadStream = process.stdin, max = MAX_DOCUMENT_BYTES): Promise<Uint8Array> {
  // A terminal would wait for the user to type a PDF.
  if (stream.isTTY) throw new Error('it is a terminal; pipe a document in (npm run ocr -- - -o out.md < scan.pdf)');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > max) {
      stream.destroy();
      throw new Error(`it gives more than ${(max / 2 ** 20).toFixed(0)} MB, the largest document Saccade opens`);
    }
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks, total));
}
