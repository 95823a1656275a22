// The largest image a PDF declares, read from its bytes before pdf.js parses anything, so that a 389 KB file
// holding one 20,000 x 20,000 image is refused in milliseconds instead of being decoded (4.3 GB). An image
// XObject is a stream, streams are never packed into object streams, and encryption covers only strings and
// stream data: its dictionary's /Width and /Height stand in the file as written. What this cannot see
// (inline images inside compressed content, sizes given by reference) pdf.js's maxImageSize still bounds.

export interface ImageSize {
  width: number;
  height: number;
}

/** How far either side of /Subtype /Image its dictionary is looked for; image dictionaries are a few hundred bytes. */
const WINDOW = 1024;
/** Dictionaries read at most, so a file of nothing but "/Subtype /Image" costs a bounded scan (a 2,000-page scan has ~4,000). */
const MAX_DICTIONARIES = 100_000;
const SUBTYPE = Buffer.from('/Subtype', 'latin1');

export function largestPdfImage(bytes: Uint8Array): ImageSize | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let largest: ImageSize | null = null;
  let read = 0;
  let from = 0;
  for (let at = buf.indexOf('/Image', from); at !== -1 && read < MAX_DICTIONARIES; at = buf.indexOf('/Image', from)) {
    from = at + 6;
    if (!followsSubtype(buf, at)) continue;
    read++;
    // The dictionary runs from its object's header to its stream's data: other objects' sizes stay out.
    const before = buf.toString('latin1', Math.max(0, at - WINDOW), at);
    const after = buf.toString('latin1', at, Math.min(buf.length, at + WINDOW));
    if (/^\/Image[A-Za-z0-9]/.test(after)) continue;
    const headers = [...before.matchAll(/\d+\s+\d+\s+obj\b/g)];
    const end = after.search(/\bstream\b/);
    const dict = before.slice(headers.at(-1)?.index ?? 0) + (end === -1 ? after : after.slice(0, end));
    from = at + (end === -1 ? 6 : end);
    const size = { width: sizeEntry(dict, 'Width'), height: sizeEntry(dict, 'Height') };
    if (size.width && size.height && (!largest || size.width * size.height > largest.width * largest.height)) largest = size;
  }
  return largest;
}

/** True when the name at `at` is the value of a /Subtype key (whitespace between them allowed). */
function followsSubtype(buf: Buffer, at: number): boolean {
  let k = at;
  while (k > 0 && k > at - 16 && /\s/.test(String.fromCharCode(buf[k - 1]!))) k--;
  return k >= SUBTYPE.length && buf.subarray(k - SUBTYPE.length, k).equals(SUBTYPE);
}

/** A direct integer value of /key; 0 when absent or given by reference ("/Width 12 0 R"). */
function sizeEntry(dict: string, key: string): number {
  const m = new RegExp(`/${key}\\s+(\\d+)(?![\\d.]|\\s+\\d+\\s+R\\b)`).exec(dict);
  return m ? Number(m[1]) : 0;
}
