// Lines of a byte stream with a bound on what is held. A line longer than the bound is dropped as it arrives,
// never gathered (a 700 MB line gathered by readline is past the longest string V8 makes), and stands in the
// sequence as null, so that a caller can answer it and go on with the lines after it.
const NEWLINE = 0x0a;
const CR = 0x0d;

/** Each line of `input` (without its end, \n or \r\n) decoded as UTF-8, or null for one over `maxBytes` bytes. */
export async function* boundedLines(input: AsyncIterable<Uint8Array | string>, maxBytes: number): AsyncGenerator<string | null> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let dropping = false;
  // Room for one byte more than the bound: a line of the most bytes allowed may end in \r\n.
  const room = maxBytes + 1;
  const end = (): string | null => {
    if (dropping) return null;
    let line = Buffer.concat(held, heldBytes);
    if (line.at(-1) === CR) line = line.subarray(0, -1);
    return line.length > maxBytes ? null : line.toString('utf8');
  };
  for await (const data of input) {
    const chunk = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from);
      const to = newline < 0 ? chunk.length : newline;
      if (!dropping && heldBytes + (to - from) > room) {
        // Over the bound before its end: what is held goes now, and the rest of the line as it comes.
        dropping = true;
        held = [];
        heldBytes = 0;
      }
      if (!dropping && to > from) {
        // A copy: the stream may reuse its chunk's memory once this iteration moves on.
        held.push(Buffer.from(chunk.subarray(from, to)));
        heldBytes += to - from;
      }
      if (newline < 0) break;
      yield end();
      held = [];
      heldBytes = 0;
      dropping = false;
      from = newline + 1;
    }
  }
  if (dropping || heldBytes > 0) yield end();
}
