// The pages of a TIFF and their sizes, read from its chain of image directories without decoding anything.
// sharp counts every directory each time it opens a TIFF, so asking it for each page's size costs the
// square of the page count (a 2 MB file of 20,000 one-pixel pages took hours); this walk reads each
// directory once, and stops one past the page limit, so a file with too many pages costs no more than the
// limit.

export interface TiffPage {
  width: number;
  height: number;
  /** The Orientation tag (1..8; 1 when absent): 5..8 store the page a quarter turn off. */
  orientation: number;
}

const TAG_WIDTH = 256;
const TAG_HEIGHT = 257;
const TAG_ORIENTATION = 274;
const TYPE_SHORT = 3;
const TYPE_LONG = 4;
const TYPE_LONG8 = 16;

/**
 * Walks the directory chain (classic TIFF and BigTIFF) as libtiff does: the chain ends at a zero offset or
 * at an offset outside the file. Throws past `maxPages` pages, and at a chain that loops back, which
 * libtiff counts but sharp then refuses to decode.
 */
export function readTiffPages(bytes: Uint8Array, maxPages: number): TiffPage[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const le = bytes[0] === 0x49;
  const big = view.byteLength >= 16 && view.getUint16(2, le) === 43;
  const u16 = (at: number) => view.getUint16(at, le);
  const u32 = (at: number) => view.getUint32(at, le);
  // Offsets past 2^53 are outside any file this reads, so a Number holds every one that matters.
  const u64 = (at: number) => Number(view.getBigUint64(at, le));
  const entryBytes = big ? 20 : 12;
  const pages: TiffPage[] = [];
  const seen = new Set<number>();
  let offset = view.byteLength >= 8 ? (big ? u64(8) : u32(4)) : 0;
  while (offset !== 0) {
    if (seen.has(offset)) throw new Error(`the TIFF's page list loops back to an earlier page after page ${pages.length}`);
    const countBytes = big ? 8 : 2;
    if (offset + countBytes > view.byteLength) break;
    const count = big ? u64(offset) : u16(offset);
    const entries = offset + countBytes;
    const nextAt = entries + count * entryBytes;
    if (nextAt + (big ? 8 : 4) > view.byteLength) break;
    if (pages.length === maxPages) throw new Error(`the TIFF has more than ${maxPages} pages; the limit is ${maxPages}`);
    seen.add(offset);
    const page: TiffPage = { width: 0, height: 0, orientation: 1 };
    for (let e = entries; e < nextAt; e += entryBytes) {
      const tag = u16(e);
      if (tag !== TAG_WIDTH && tag !== TAG_HEIGHT && tag !== TAG_ORIENTATION) continue;
      const type = u16(e + 2);
      const at = e + (big ? 12 : 8);
      const value = type === TYPE_SHORT ? u16(at) : type === TYPE_LONG ? u32(at) : type === TYPE_LONG8 && big ? u64(at) : 0;
      if (tag === TAG_WIDTH) page.width = value;
      else if (tag === TAG_HEIGHT) page.height = value;
      else if (value >= 1 && value <= 8) page.orientation = value;
    }
    pages.push(page);
    offset = big ? u64(nextAt) : u32(nextAt);
  }
  return pages;
}
