// Memory over a long PDF: drawing its pages one after another must not grow the process by what a page takes.
// pdf.js runs in a worker thread of this process (pdf-source.ts), so the process's resident memory counts its
// heap, its canvas and the pixels it hands back. A generated 300-page scan, every page its own JPEG as a
// scanner writes them, is drawn page by page; the memory of the last pages is compared with that of the early
// ones (docs/threat-model.md: memory per page).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sharp } from '../../inputs/image-codec';
import { pdfFile, type PdfObject } from '../../../../test/support/bad-inputs';
import { openPageSource } from './page-source';

const PAGES = 300;
/** Pages 100-130 against the last 30: over the first hundred the allocator and the worker's heap warm up. */
const EARLY = [100, 130] as const;
const LATE = [PAGES - 30, PAGES] as const;
/**
 * Growth allowed per page between the two windows (a page here is 1700x550 pixels at 200 dpi: 0.9 MB of gray,
 * 3.7 MB of RGBA on the canvas). Drawing measured -0.13 to 0.00 MB a page over three runs, and 1000 pages
 * stayed within 312-330 MB; without page.cleanup() after drawing, pdf.js kept each page's decoded image:
 * 0.95 MB a page. At this bound the 2000 pages a PDF may have would add 500 MB.
 */
const GROWTH_PER_PAGE_MB = 0.25;

/** A strip of a page (8.5 x 2.75 in) holding one 100-dpi scanned line, every page its own JPEG. */
async function longScan(pages: number): Promise<Buffer> {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="850" height="275"><rect width="850" height="275" fill="white"/>'
    + '<text x="40" y="140" font-family="DejaVu Sans" font-size="24">Page after page of the same scanned line</text></svg>';
  const jpeg = await sharp(Buffer.from(svg)).toColourspace('b-w').jpeg({ quality: 80 }).toBuffer();
  const kids = Array.from({ length: pages }, (_, i) => `${3 + 3 * i} 0 R`).join(' ');
  const objects: PdfObject[] = ['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`];
  for (let i = 0; i < pages; i++) {
    const n = 3 + 3 * i;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 198] /Resources << /XObject << /Im1 ${n + 2} 0 R >> >> /Contents ${n + 1} 0 R >>`,
      { dict: '', stream: Buffer.from('q 612 0 0 198 0 0 cm /Im1 Do Q', 'latin1') },
      { dict: '/Type /XObject /Subtype /Image /Width 850 /Height 275 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode', stream: jpeg },
    );
  }
  return pdfFile(objects);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

test(`PDF pages: drawing ${PAGES} pages one after another keeps the memory of the early pages`, { timeout: 120_000 }, async () => {
  const source = await openPageSource(new Uint8Array(await longScan(PAGES)));
  const residentMb: number[] = [];
  try {
    assert.equal(source.pages.length, PAGES);
    for (let i = 0; i < PAGES; i++) {
      const page = await source.render(i);
      assert.equal(page.data.length, page.width * page.height);
      residentMb.push(process.memoryUsage.rss() / 2 ** 20);
    }
  } finally {
    source.close();
  }
  const early = median(residentMb.slice(...EARLY));
  const late = median(residentMb.slice(...LATE));
  const perPage = (late - early) / (LATE[0] - EARLY[0]);
  assert.ok(perPage < GROWTH_PER_PAGE_MB, `resident memory grew ${perPage.toFixed(2)} MB a page: ${early.toFixed(0)} MB at pages ${EARLY[0]}-${EARLY[1]}, ${late.toFixed(0)} MB over the last 30`);
});
