import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectFormat } from './page-source';
import { listSamples, readSample } from './samples';

test('the bundled samples are listed with titles and read back as documents', () => {
  const samples = listSamples();
  assert.deepEqual(samples.map((s) => s.name).sort(), ['huckleberry-finn-p29.jpg', 'page-photo.jpg', 'scanned-page.png', 'two-page-report.pdf']);
  for (const s of samples) {
    assert.ok(s.title.length > 0);
    const { bytes } = readSample(s.name);
    assert.ok(bytes.length > 1000 && bytes.length < 400_000, `${s.name}: ${bytes.length} bytes`);
    assert.notEqual(detectFormat(bytes), null);
  }
});

test('only indexed names can be read', () => {
  assert.throws(() => readSample('../../package.json'), /no sample named/);
  assert.throws(() => readSample('missing.png'), /no sample named/);
});
