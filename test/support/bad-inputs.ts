// Files the app must refuse with a clear message, built in memory: a corrupt PDF, an empty file, a PNG whose
// header declares 20,000 x 20,000 pixels (the pipeline checks sizes on headers, so the pixel data need not
// exist), a TIFF of thousands of 1-pixel pages, and PDFs put together object by object (a long scan among them).
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export function hugePng(width = 20_000, height = 20_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A little-endian TIFF of `pages` white 1 x 1 gray pages, ~116 bytes each (20,000 pages: 2.3 MB). With
 * `loopBack` the last page's next-directory offset points at the first page again.
 */
export function manyPageTiff(pages: number, loopBack = false): Buffer {
  // (tag, type: 3 SHORT / 4 LONG, value); StripOffsets (273) is filled in per page.
  const tags: Array<[number, number, number]> = [[256, 3, 1], [257, 3, 1], [258, 3, 8], [259, 3, 1], [262, 3, 1],
    [273, 4, 0], [277, 3, 1], [278, 3, 1], [279, 4, 1]];
  const ifdBytes = 2 + tags.length * 12 + 4;
  const pageBytes = ifdBytes + 2;
  const out = Buffer.alloc(8 + pages * pageBytes);
  out.write('II*\0', 0, 'latin1');
  out.writeUInt32LE(8, 4);
  for (let p = 0; p < pages; p++) {
    const at = 8 + p * pageBytes;
    out.writeUInt16LE(tags.length, at);
    tags.forEach(([tag, type, value], k) => {
      const entry = at + 2 + k * 12;
      out.writeUInt16LE(tag, entry);
      out.writeUInt16LE(type, entry + 2);
      out.writeUInt32LE(1, entry + 4);
      const v = tag === 273 ? at + ifdBytes : value;
      if (type === 3) out.writeUInt16LE(v, entry + 8);
      else out.writeUInt32LE(v, entry + 8);
    });
    const next = p + 1 < pages ? at + pageBytes : loopBack ? 8 : 0;
    out.writeUInt32LE(next, at + ifdBytes - 4);
    out[at + ifdBytes] = 255;
  }
  return out;
}

/** One PDF object: a dictionary or other value written as is, or a stream with its dictionary's entries. */
export type PdfObject = string | { dict: string; stream: Buffer };

/** A PDF of the given objects, numbered from 1, with a correct cross-reference table; object 1 is the catalog. */
export function pdfFile(objects: PdfObject[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((o, i) => {
    offsets.push(length);
    const body = typeof o === 'string'
      ? Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`, 'latin1')
      : Buffer.concat([Buffer.from(`${i + 1} 0 obj\n<< ${o.dict} /Length ${o.stream.length} >>\nstream\n`, 'latin1'), o.stream,
        Buffer.from('\nendstream\nendobj\n', 'latin1')]);
    parts.push(body);
    length += body.length;
  });
  const xref = ['xref', `0 ${objects.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)];
  parts.push(Buffer.from(`${xref.join('\n')}\ntrailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * A one-page Letter PDF drawing `content`, with `resources` in the page's resource dictionary; `extra`
 * objects are numbered from 5 (1 catalog, 2 page tree, 3 page, 4 content).
 */
export function onePagePdf(content: string, resources = '', extra: PdfObject[] = []): Buffer {
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << ${resources} >> /Contents 4 0 R >>`,
    { dict: '', stream: Buffer.from(content, 'latin1') },
    ...extra,
  ]);
}

/** A page filled by one gray image that declares width x height pixels but carries a few bytes of data. */
export function pdfWithImage(width: number, height: number): Buffer {
  return onePagePdf('q 612 0 0 792 0 0 cm /Im1 Do Q', '/XObject << /Im1 5 0 R >>', [{
    dict: `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`,
    stream: deflateSync(Buffer.alloc(64)),
  }]);
}

export const BAD_INPUTS = [
  { name: 'corrupt.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.7\n1 0 obj <</Type /Catalog /Pages 2 0 R>>\nthis is not a PDF body\n%%EOF\n') },
  { name: 'empty.png', mimeType: 'image/png', buffer: Buffer.alloc(0) },
  { name: 'huge.png', mimeType: 'image/png', buffer: hugePng() },
];

/**
 * A scanned document of `pages` pages, each one JPEG drawn over a Letter page as a scanner writes it; every
 * page is its own image object (a reader caches images per object, so shared ones would hide per-page costs).
 */
export function scannedPdf(jpeg: Buffer, width: number, height: number, pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${3 + 3 * i} 0 R`).join(' ');
  const objects: PdfObject[] = ['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`];
  for (let i = 0; i < pages; i++) {
    const n = 3 + 3 * i;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 ${n + 2} 0 R >> >> /Contents ${n + 1} 0 R >>`,
      { dict: '', stream: Buffer.from('q 612 0 0 792 0 0 cm /Im1 Do Q', 'latin1') },
      { dict: `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode`, stream: jpeg },
    );
  }
  return pdfFile(objects);
}
