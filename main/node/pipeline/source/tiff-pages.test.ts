import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sharp } from '../../inputs/image-codec';
import { manyPageTiff } from '../../../../test/support/bad-inputs';
import { openPageSource } from './page-source';
import { readTiffPages } from './tiff-pages';

const white = () => sharp({ create: { width: 120, height: 60, channels: 3, background: '#ffffff' } });

test('the directory chain gives every page and its size, in classic TIFF and BigTIFF', async () => {
  const fixture = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'pages', 'two-pages.tiff'));
  const meta = await sharp(fixture).metadata();
  const pages = readTiffPages(new Uint8Array(fixture), 10);
  assert.equal(pages.length, 2);
  assert.deepEqual([pages[0]!.width, pages[0]!.height], [meta.width, meta.height]);
  const big = await white().tiff({ bigtiff: true, compression: 'lzw' }).toBuffer();
  assert.equal(big.readUInt16LE(2), 43);
  assert.deepEqual(readTiffPages(new Uint8Array(big), 10), [{ width: 120, height: 60, orientation: 1 }]);
});

test('the walk stops one page past the limit and at the end of a truncated file', () => {
  assert.equal(readTiffPages(new Uint8Array(manyPageTiff(10)), 10).length, 10);
  assert.throws(() => readTiffPages(new Uint8Array(manyPageTiff(11)), 10), /more than 10 pages; the limit is 10/);
  // Cut inside the fourth page's directory: three whole pages remain.
  assert.equal(readTiffPages(new Uint8Array(manyPageTiff(10).subarray(0, 8 + 3 * 116 + 50)), 10).length, 3);
  assert.deepEqual(readTiffPages(new Uint8Array([0x49, 0x49, 0x2a, 0x00]), 10), []);
});

test('a page stored a quarter turn off (Orientation 6) opens upright, as sharp renders it', async () => {
  const stored = await white().withMetadata({ orientation: 6 }).tiff().toBuffer();
  assert.equal(readTiffPages(new Uint8Array(stored), 1)[0]!.orientation, 6);
  const source = await openPageSource(new Uint8Array(stored));
  const img = await source.render(0);
  assert.deepEqual([source.pages[0]!.width, source.pages[0]!.height, img.width, img.height], [60, 120, 60, 120]);
});
