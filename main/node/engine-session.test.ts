import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { DEFAULT_DECODE_OPTIONS, type DecodeOptions } from '../../common/engine-types';
import { EngineSession, type OpenedDocument, type PagePipeline } from './engine-session';
import { addonPath } from './native-addon';

test('a cancel sent while the model is still loading stops the decode waiting for it', { skip: !existsSync(addonPath()) && 'native engine not built' }, async () => {
  const seen: AbortSignal[] = [];
  const doc: OpenedDocument = { info: { docId: 'd1', name: 'page.png', format: 'png', pages: [{ index: 0, width: 10, height: 10 }] }, close: () => {} };
  // The real engine loads the model; the pipeline reports what it was given and how the signal stood.
  const pipeline: PagePipeline = {
    openDocument: async () => doc,
    decodeDocument: async (_doc, _model, _options: DecodeOptions, _pages, _emit, signal) => {
      seen.push(signal);
      return { regions: [], cancelled: signal.aborted, markdown: '' };
    },
    listSamples: () => [],
    readSample: () => ({ name: 'x', bytes: new Uint8Array() }),
  };
  const session = new EngineSession(() => {}, pipeline);
  await session.handle({ kind: 'request', id: 1, name: 'openDocument', params: { name: 'page.png', bytes: '' } });
  const decoding = session.handle({ kind: 'request', id: 2, name: 'decode', params: { docId: 'd1', pages: null, options: DEFAULT_DECODE_OPTIONS } });
  assert.deepEqual(await session.handle({ kind: 'request', id: 3, name: 'cancel', params: {} }), { cancelled: true });
  assert.deepEqual(await decoding, { regions: [], cancelled: true });
  assert.equal(seen.length, 1);
  assert.ok(seen[0]!.aborted);
  // The next decode runs: the cancel was spent on the one it stopped.
  assert.deepEqual(await session.handle({ kind: 'request', id: 4, name: 'decode', params: { docId: 'd1', pages: null, options: DEFAULT_DECODE_OPTIONS } }), { regions: [], cancelled: false });
});
