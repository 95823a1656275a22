// A document's figures appear with the document, not as its pages are read: until it ends, the output folder
// shows no figure and no temporary name, only a hidden folder; a figure of a page never written is not kept.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_DECODE_OPTIONS } from '../../../common/engine-types';
import type { DocumentInfo } from '../../../common/protocol';
import { DocumentOutputs } from './cli-document-outputs';
import type { FigureSink } from '../pipeline';

const DOC: DocumentInfo = {
  docId: 'd', name: 'report.pdf', format: 'pdf',
  pages: [0, 1, 2].map((index) => ({ index, width: 100, height: 100 })),
};
const FIGURE = { width: 4, height: 3, data: new Uint8Array(12).fill(128) };
const notInput = () => false;

function outputs(dir: string, force = false, isInput: (path: string) => boolean = notInput): DocumentOutputs {
  const paths = { markdown: join(dir, 'report.md'), stdout: false, json: null, hocr: null, pdf: null };
  return new DocumentOutputs(DOC, paths, DEFAULT_DECODE_OPTIONS, force, new Uint8Array(), isInput);
}

/** What a reader of the output folder sees, hidden names left out. */
const visible = (dir: string) => readdirSync(dir).filter((name) => !name.startsWith('.')).sort();

async function readPage(out: DocumentOutputs, page: number): Promise<void> {
  const sink = out.figures as FigureSink;
  const name = await sink({ page, index: 1, image: FIGURE });
  await out.page({ page, markdown: `![figure](${name})\n`, regions: [], recognised: [] });
}

test('figures are out of sight until their document ends, then all in place under their own names', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-figures-'));
  const out = outputs(dir);
  await readPage(out, 0);
  await readPage(out, 1);
  // Only the Markdown, which is written as its pages are read.
  assert.deepEqual(visible(dir), ['report.md']);
  await out.finish({ cancelled: false });
  assert.deepEqual(visible(dir), ['report-p1-figure1.png', 'report-p2-figure1.png', 'report.md']);
  assert.deepEqual(readdirSync(dir).filter((name) => name.startsWith('.')), [], 'the hidden folder is gone');
  assert.deepEqual(readFileSync(join(dir, 'report-p1-figure1.png')).subarray(1, 4).toString(), 'PNG');
});

test('a failed document keeps the figures of the pages it wrote, and only those', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-figures-'));
  const out = outputs(dir);
  await readPage(out, 0);
  // Page 2's figure is written, then the page fails before its Markdown is.
  await (out.figures as FigureSink)({ page: 1, index: 1, image: FIGURE });
  await out.finish({ cancelled: false, error: 'page 2 failed' });
  assert.deepEqual(readdirSync(dir).sort(), ['report-p1-figure1.png', 'report.md']);
  // A page still in flight after its document ended writes nothing.
  assert.equal(await (out.figures as FigureSink)({ page: 2, index: 1, image: FIGURE }), null);
  assert.deepEqual(readdirSync(dir).sort(), ['report-p1-figure1.png', 'report.md']);
});

test('a figure replaces an existing file only with --force, and never an input', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'saccade-figures-'));
  const figure = join(dir, 'report-p1-figure1.png');
  writeFileSync(figure, 'mine');
  const careful = outputs(dir);
  await readPage(careful, 0);
  await assert.rejects(careful.finish({ cancelled: false }), /EEXIST/);
  assert.equal(readFileSync(figure, 'utf8'), 'mine');
  assert.deepEqual(readdirSync(dir).filter((name) => name.startsWith('.')), []);
  const guarded = outputs(dir, true, (path) => path === figure);
  await readPage(guarded, 0);
  await assert.rejects(guarded.finish({ cancelled: false }), /report-p1-figure1\.png is an input; a figure may not replace it/);
  assert.equal(readFileSync(figure, 'utf8'), 'mine');
  const forced = outputs(dir, true);
  await readPage(forced, 0);
  await forced.finish({ cancelled: false });
  assert.notEqual(readFileSync(figure, 'utf8'), 'mine');
});

