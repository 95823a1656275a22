import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sharp } from '../../inputs/image-codec';
import { hugePng } from '../../../../test/support/bad-inputs';
import { openDocument } from '../index';
import { detectFormat, MAX_PAGE_PIXELS, openPageSource } from './page-source';

const ROOT = join(__dirname, '..', '..', '..', '..');

test('formats are told by their bytes, not their names', () => {
  assert.equal(detectFormat(new TextEncoder().encode('%PDF-1.7\n')), 'pdf');
  assert.equal(detectFormat(new Uint8Array(hugePng(1, 1))), 'png');
  assert.equal(detectFormat(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])), 'jpeg');
  assert.equal(detectFormat(new Uint8Array([0x49, 0x49, 0x2a, 0x00])), 'tiff');
  assert.equal(detectFormat(new TextEncoder().encode('{"json": true}')), null);
});

test('bad inputs are refused with a message a user can act on', async () => {
  await assert.rejects(openDocument('empty.pdf', new Uint8Array()), /empty\.pdf: the file is empty/);
  await assert.rejects(openDocument('notes.txt', new TextEncoder().encode('hello')), /unsupported file format/);
  await assert.rejects(openDocument('broken.pdf', new TextEncoder().encode('%PDF-1.4\nthis is not a pdf')), /broken\.pdf: not a readable PDF/);
  // The size is refused from the header alone: 400 MP are never allocated.
  await assert.rejects(openDocument('huge.png', new Uint8Array(hugePng())), /20000x20000 pixels \(400 MP\); the limit is 100 MP/);
});

test('a two-page PDF opens as two pages at 200 dpi and renders one page to gray', async () => {
  const source = await openPageSource(new Uint8Array(readFileSync(join(ROOT, 'assets', 'samples', 'two-page-report.pdf'))));
  try {
    assert.equal(source.format, 'pdf');
    assert.equal(source.pages.length, 2);
    for (const p of source.pages) assert.ok(p.width > 1000 && p.width * p.height <= MAX_PAGE_PIXELS, JSON.stringify(p));
    // Pages of different sizes share one canvas: each render has its own page's size and content.
    for (const p of [1, 0]) {
      const img = await source.render(p);
      assert.deepEqual([img.width, img.height], [source.pages[p]!.width, source.pages[p]!.height]);
      let sum = 0;
      let dark = 0;
      for (const v of img.data) {
        sum += v;
        if (v < 160) dark++;
      }
      assert.ok(sum / img.data.length > 180 && dark > 0.005 * img.data.length, `page ${p}: paper and ink expected`);
    }
  } finally {
    source.close();
  }
});

test('EXIF orientation is applied: a portrait photo stored sideways opens as portrait', async () => {
  const stored = await sharp({ create: { width: 120, height: 60, channels: 3, background: '#ffffff' } })
    .jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const doc = await openDocument('photo.jpg', new Uint8Array(stored));
  assert.deepEqual([doc.info.pages[0]!.width, doc.info.pages[0]!.height], [60, 120]);
  doc.close();
});

test('large images are scaled to the working size, keeping their aspect', async () => {
  const big = await sharp({ create: { width: 6000, height: 4000, channels: 3, background: '#ffffff' } }).png().toBuffer();
  const doc = await openDocument('big.png', new Uint8Array(big));
  const p = doc.info.pages[0]!;
  assert.ok(p.width * p.height <= MAX_PAGE_PIXELS);
  assert.ok(Math.abs(p.width / p.height - 1.5) < 0.01);
  doc.close();
});

test('every page of a multi-page TIFF is a page', async () => {
  const doc = await openDocument('scan.tiff', new Uint8Array(readFileSync(join(ROOT, 'test', 'fixtures', 'pages', 'two-pages.tiff'))));
  assert.equal(doc.info.format, 'tiff');
  assert.equal(doc.info.pages.length, 2);
  doc.close();
});
