// What an export at its limits costs the engine process: what is laid out costs it by the character, so the
// edited text's words are counted before any is, and the limit is one the process can afford
// (common/protocol.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MAX_EXPORT_TEXT_CHARS, MAX_EXPORT_WORD_CHARS, type DocumentInfo } from '../../../common/protocol';
import { editedSearchablePdf } from './edited-pdf';
import { sharp } from '../inputs/image-codec';

/** The most memory this process has held so far, in MB (Linux reports it as VmHWM). */
const peakRssMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

const doc: DocumentInfo = { docId: 'd', name: 'page.png', format: 'png', pages: [{ index: 0, width: 800, height: 1000 }] };
const page = async () => new Uint8Array(await sharp({ create: { width: 800, height: 1000, channels: 3, background: '#fff' } }).png().toBuffer());

test('an export of the longest text a window may send, all one-letter words or one word, is refused in one line before any is laid out', async () => {
  // 64 M characters of this took the engine past 5 GB and to SIGABRT (issue 59).
  const text = 'a '.repeat(MAX_EXPORT_TEXT_CHARS / 2);
  const input = await page();
  const before = peakRssMb();
  await assert.rejects(editedSearchablePdf(doc, input, [], text), {
    message: `the edited text's words hold ${MAX_EXPORT_TEXT_CHARS} characters, more than the ${MAX_EXPORT_WORD_CHARS} an export lays out`,
  });
  // One word as long: it took the export's worker past its 1 GB heap after 115 s.
  await assert.rejects(editedSearchablePdf(doc, input, [], 'a'.repeat(MAX_EXPORT_TEXT_CHARS)), {
    message: `the edited text's words hold ${MAX_EXPORT_TEXT_CHARS + 1} characters, more than the ${MAX_EXPORT_WORD_CHARS} an export lays out`,
  });
  const grown = peakRssMb() - before;
  assert.ok(grown < 128, `counting the words grew the engine by ${grown.toFixed(0)} MB`);
});

test('an export of as many one-letter words as it may lay out is made within a bounded growth of the engine', async () => {
  const input = await page();
  const before = peakRssMb();
  const pdf = await editedSearchablePdf(doc, input, [], 'a '.repeat(MAX_EXPORT_WORD_CHARS / 2));
  const grown = peakRssMb() - before;
  assert.equal(Buffer.from(pdf.subarray(0, 5)).toString('latin1'), '%PDF-');
  // Measured: 290 MB (the export's worker and the boxes); the engine holds documents and the model besides.
  assert.ok(grown < 512, `the export grew the engine by ${grown.toFixed(0)} MB`);
});
