import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onePagePdf, pdfWithImage } from '../../../../test/support/bad-inputs';
import { largestPdfImage } from './pdf-images';

const image = (dict: string) => ({ dict: `/Type /XObject /Subtype /Image ${dict} /ColorSpace /DeviceGray /BitsPerComponent 8`, stream: Buffer.alloc(4) });

test('the largest image dictionary in the bytes is found, whatever the spacing', () => {
  assert.deepEqual(largestPdfImage(pdfWithImage(20_000, 300)), { width: 20_000, height: 300 });
  const two = onePagePdf('', '', [image('/Width 10 /Height 10'), image('/Height 3000\n/Width\t2000'), image('/Width 50 /Height 40')]);
  assert.deepEqual(largestPdfImage(two), { width: 2000, height: 3000 });
  assert.deepEqual(largestPdfImage(onePagePdf('', '', [{ ...image('/Width 7 /Height 9'), dict: '/Subtype/Image/Width 7/Height 9' }])), { width: 7, height: 9 });
});

test('what is not an image size is not taken for one', () => {
  // A size given by reference, a ProcSet name, a form's /Width-less dictionary and another object's size.
  const pdf = onePagePdf('', '/ProcSet [/PDF /ImageB /ImageC]', [
    image('/Width 12 0 R /Height 40000'),
    '<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] >>',
    '<< /Width 90000 /Height 90000 >>',
  ]);
  assert.equal(largestPdfImage(pdf), null);
  assert.equal(largestPdfImage(new TextEncoder().encode('%PDF-1.7\n')), null);
});
