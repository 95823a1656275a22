// Hostile and unusual files: every bound is checked before the work it bounds, so refusing costs little time
// and memory, and every colour mode the decoders hand over comes out as the same 8-bit gray page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sharp } from '../../inputs/image-codec';
import { manyPageTiff, onePagePdf, pdfWithImage } from '../../../../test/support/bad-inputs';
import { MAX_INPUT_PIXELS, MAX_PAGE_PIXELS, MAX_PAGES, openPageSource } from './page-source';
import { DEFAULT_RENDER_BUDGET } from './pdf-render-budget';
import { openPdfPages } from './pdf-source';

async function darkPixels(bytes: Uint8Array | Buffer, page = 0): Promise<{ pages: number; dark: number; size: number }> {
  const source = await openPageSource(new Uint8Array(bytes));
  try {
    const img = await source.render(page);
    assert.equal(img.data.length, img.width * img.height);
    let dark = 0;
    for (const v of img.data) if (v < 128) dark++;
    return { pages: source.pages.length, dark, size: img.data.length };
  } finally {
    source.close();
  }
}

test('a TIFF of 20,000 tiny pages is refused from its directory list, at once', { timeout: 5000 }, async () => {
  await assert.rejects(openPageSource(new Uint8Array(manyPageTiff(20_000))), new RegExp(`the TIFF has more than ${MAX_PAGES} pages; the limit is ${MAX_PAGES}`));
});

test('a TIFF opens in time linear in its pages: all the limit allows, and its last page renders', { timeout: 10_000 }, async () => {
  const { pages, size } = await darkPixels(manyPageTiff(MAX_PAGES), MAX_PAGES - 1);
  assert.deepEqual([pages, size], [MAX_PAGES, 1]);
});

test('a TIFF whose directory chain loops back is refused when opened', async () => {
  await assert.rejects(openPageSource(new Uint8Array(manyPageTiff(5, true))), /the TIFF's page list loops back to an earlier page after page 5/);
});

test('a PDF holding a 20,000 x 20,000 image is refused when opened, before pdf.js reads it', { timeout: 5000 }, async () => {
  await assert.rejects(openPageSource(new Uint8Array(pdfWithImage(20_000, 20_000))),
    /the PDF holds a 20000x20000 image \(400 MP\); the limit is 100 MP/);
});

test('an image the bytes do not show (inline in a content stream) is left out by pdf.js, not decoded', { timeout: 10_000 }, async () => {
  // 100.01 MP of zeros: black if drawn, ~400 MB of RGBA while decoding.
  const pdf = onePagePdf('q 612 0 0 792 0 0 cm BI /W 10001 /H 10000 /CS /G /BPC 8 ID \x00\x00\x00\x00 EI Q');
  assert.equal((await darkPixels(pdf)).dark, 0);
  const small = onePagePdf('q 612 0 0 792 0 0 cm BI /W 4 /H 4 /CS /G /BPC 8 ID \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00 EI Q');
  const drawn = await darkPixels(small);
  assert.ok(drawn.dark > 0.9 * drawn.size, 'an image within the limit is drawn');
});

/** White page, black square in the middle third, in the colour mode `encode` writes. */
async function squareIn(channels: 3 | 4, encode: (s: sharp.Sharp) => sharp.Sharp): Promise<Buffer> {
  const square = await sharp({ create: { width: 20, height: 20, channels, background: channels === 4 ? '#000000ff' : '#000000' } }).png().toBuffer();
  const page = await sharp({ create: { width: 60, height: 60, channels, background: channels === 4 ? '#ffffff00' : '#ffffff' } })
    .composite([{ input: square, left: 20, top: 20 }]).png().toBuffer();
  // Compositing adds an alpha channel; an opaque page drops it again.
  return encode(channels === 3 ? sharp(page).removeAlpha() : sharp(page)).toBuffer();
}

test('every colour mode comes out as the same gray page: 16-bit, palette, alpha, CMYK, bilevel', async () => {
  const modes: Record<string, () => Promise<Buffer>> = {
    'PNG 16-bit gray': () => squareIn(3, (s) => s.toColourspace('grey16').png()),
    'PNG 16-bit RGB': () => squareIn(3, (s) => s.toColourspace('rgb16').png()),
    'PNG palette': () => squareIn(3, (s) => s.png({ palette: true, colours: 4 })),
    'PNG gray + alpha (transparent paper)': () => squareIn(4, (s) => s.grayscale().png()),
    'PNG RGBA (transparent paper)': () => squareIn(4, (s) => s.png()),
    'JPEG CMYK': () => squareIn(3, (s) => s.toColourspace('cmyk').jpeg()),
    'TIFF CMYK': () => squareIn(3, (s) => s.toColourspace('cmyk').tiff()),
    'TIFF 16-bit RGB': () => squareIn(3, (s) => s.toColourspace('rgb16').tiff()),
    'TIFF bilevel (CCITT G4)': () => squareIn(3, (s) => s.toColourspace('b-w').tiff({ bitdepth: 1, compression: 'ccittfax4' })),
  };
  for (const [mode, file] of Object.entries(modes)) {
    const { dark, size } = await darkPixels(await file()).catch((err: Error) => assert.fail(`${mode}: ${err.message}`));
    assert.equal(size, 3600, mode);
    // The 20 x 20 square, give or take an edge a codec blurs.
    assert.ok(dark >= 360 && dark <= 440, `${mode}: ${dark} dark pixels, 400 expected`);
  }
});

test('formats sharp could decode but the app does not take never reach a decoder', async () => {
  const blank = sharp({ create: { width: 8, height: 8, channels: 3, background: '#ffffff' } });
  const others = {
    'animated GIF': await blank.clone().gif().toBuffer(),
    WebP: await blank.clone().webp().toBuffer(),
    AVIF: await blank.clone().avif().toBuffer(),
    SVG: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1000000" height="1000000"/>'),
  };
  for (const [name, bytes] of Object.entries(others)) {
    await assert.rejects(openPageSource(new Uint8Array(bytes)), /unsupported file format/, name);
  }
});

test('a page too complex to draw is stopped at its budget, not drawn for a minute into gigabytes', { timeout: 10_000 }, async () => {
  // 400,000 one-pixel rectangles: ~1 GB and ~15 s to draw in full.
  const source = await openPageSource(new Uint8Array(onePagePdf('0 0 1 1 re f\n'.repeat(400_000))), 72, { ms: 60_000, bytes: 64 * 2 ** 20 });
  try {
    await assert.rejects(source.render(0), /page 1 of the PDF could not be rendered \(it is too complex: drawing it takes more than 64 MB\)/);
  } finally {
    source.close();
  }
  const slow = await openPageSource(new Uint8Array(onePagePdf('0 0 1 1 re f\n'.repeat(400_000))), 72, { ms: 200, bytes: 2 ** 30 });
  await assert.rejects(slow.render(0), /too complex: drawing it takes more than 0.2 s/);
  slow.close();
});

test('a PDF whose parsing would grow without end costs its reader thread, at its heap bound, and one line', { timeout: 60_000 }, async () => {
  // 16 MB of nested arrays behind a PDF header: pdf.js's parser builds them all (190 MB of them took a whole
  // process to 4.7 GB and killed it). The reader thread gets 64 MB here.
  const nested = new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(16 * 2 ** 20, '[')]));
  const limits = { dpi: 72, fitPixels: MAX_PAGE_PIXELS, maxImagePixels: MAX_INPUT_PIXELS, maxPages: MAX_PAGES, budget: DEFAULT_RENDER_BUDGET, heapMb: 64 };
  const heapBefore = process.memoryUsage().heapUsed;
  await assert.rejects(openPdfPages(nested, limits), /reading it needs more than 64 MB of memory/);
  assert.ok(process.memoryUsage().heapUsed - heapBefore < 32 * 2 ** 20, 'the parsing happened outside this thread\'s heap');
  // The next document reads as ever.
  const next = await openPdfPages(onePagePdf('0 0 1 1 re f'), limits);
  assert.equal(next.pages.length, 1);
  assert.ok((await next.render(0)).data.length > 0);
  next.close();
});

test('PDFs opened together are parsed one after another, so hostile ones cannot grow side by side', { timeout: 60_000 }, async () => {
  const nested = new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(16 * 2 ** 20, '[')]));
  const limits = { dpi: 72, fitPixels: MAX_PAGE_PIXELS, maxImagePixels: MAX_INPUT_PIXELS, maxPages: MAX_PAGES, budget: DEFAULT_RENDER_BUDGET, heapMb: 64 };
  const settled: string[] = [];
  const opens = ['first', 'second', 'third'].map((name) => openPdfPages(nested, limits).catch(() => void settled.push(name)));
  // A well-formed PDF asked for last waits its turn too, and then opens.
  const good = openPdfPages(onePagePdf('0 0 1 1 re f'), limits).then((source) => {
    settled.push('good');
    source.close();
  });
  await Promise.all([...opens, good]);
  assert.deepEqual(settled, ['first', 'second', 'third', 'good']);
});
