import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { DEFAULT_DECODE_OPTIONS } from '../../../common/engine-types';
import { MAX_DOCUMENTS_PER_SESSION, MAX_OPEN_DOCUMENT_BYTES, type EventBatch, type RequestMap, type RequestName } from '../../../common/protocol';
import { EngineSession } from './engine-session';
import { addonPath } from './native-addon';
import { SharedEngine, type OpenedDocument, type PagePipeline } from './shared-engine';

const noAddon = !existsSync(addonPath()) && 'native engine not built';

/**
 * A pipeline whose documents are numbered and whose decodes emit one progress batch and then run until
 * cancelled or `finish`ed; it records the documents closed and the signals it was given.
 */
function fakePipeline() {
  const closed: string[] = [];
  const signals: AbortSignal[] = [];
  const finishers: Array<() => void> = [];
  let opened = 0;
  const pipeline: PagePipeline = {
    openDocument: async (name) => {
      const docId = `d${++opened}`;
      return { info: { docId, name, format: 'png', pages: [{ index: 0, width: 10, height: 10 }] }, close: () => void closed.push(docId) };
    },
    decodeDocument: async (doc: OpenedDocument, _model, { emit, signal }) => {
      signals.push(signal);
      emit([{ type: 'progress', docId: doc.info.docId, regionsDone: 0, regionsTotal: 1, elapsedMs: 0, remainingMs: null }]);
      await new Promise<void>((resolve) => {
        finishers.push(resolve);
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve());
      });
      return { cancelled: signal.aborted };
    },
    listSamples: () => [],
    readSample: () => ({ name: 'x', bytes: new Uint8Array() }),
  };
  return { pipeline, closed, signals, finishAll: () => { for (const f of finishers.splice(0)) f(); } };
}

/** A session that records the event batches sent to it. */
function sessionOn(engine: SharedEngine) {
  const batches: EventBatch[] = [];
  const session = new EngineSession(engine, (b) => void batches.push(b));
  let id = 0;
  const ask = <N extends RequestName>(name: N, params: RequestMap[N][0]) =>
    session.handle({ kind: 'request', id: ++id, name, params }) as Promise<RequestMap[N][1]>;
  const open = async () => (await ask('openDocument', { name: 'page.png', bytes: '' })).doc.docId;
  const decode = (docId: string) => ask('decode', { docId, pages: null, options: DEFAULT_DECODE_OPTIONS });
  return { session, batches, ask, open, decode };
}

/** Until the pipeline has started the nth decode (the model loads first). */
async function decodeStarted(signals: AbortSignal[], n: number): Promise<void> {
  while (signals.length < n) await new Promise((r) => setTimeout(r, 5));
}

test('a cancel sent while the model is still loading stops the decode waiting for it', { skip: noAddon }, async () => {
  const fake = fakePipeline();
  const user = sessionOn(new SharedEngine(fake.pipeline));
  const docId = await user.open();
  const decoding = user.decode(docId);
  assert.deepEqual(await user.ask('cancel', {}), { cancelled: true });
  assert.deepEqual(await decoding, { cancelled: true });
  assert.equal(fake.signals.length, 1);
  assert.ok(fake.signals[0]!.aborted);
  // The next decode runs: the cancel was spent on the one it stopped.
  const next = user.decode(docId);
  await decodeStarted(fake.signals, 2);
  fake.finishAll();
  assert.deepEqual(await next, { cancelled: false });
});

test('a decode\'s events go to its own session alone, each batch naming the document', { skip: noAddon }, async () => {
  const fake = fakePipeline();
  const engine = new SharedEngine(fake.pipeline);
  const user = sessionOn(engine);
  const other = sessionOn(engine);
  const docId = await user.open();
  await other.open();
  const decoding = user.decode(docId);
  await decodeStarted(fake.signals, 1);
  fake.finishAll();
  await decoding;
  assert.deepEqual(user.batches.map((b) => b.docId), [docId]);
  assert.equal(user.batches[0]!.events[0]!.type, 'progress');
  assert.deepEqual(other.batches, []);
});

test('a session cannot cancel, close or decode another session\'s document', { skip: noAddon }, async () => {
  const fake = fakePipeline();
  const engine = new SharedEngine(fake.pipeline);
  const user = sessionOn(engine);
  const other = sessionOn(engine);
  const docId = await user.open();
  const decoding = user.decode(docId);
  await decodeStarted(fake.signals, 1);
  assert.deepEqual(await other.ask('cancel', {}), { cancelled: false });
  assert.equal(fake.signals[0]!.aborted, false, 'the user\'s decode runs on');
  assert.deepEqual(await other.ask('closeDocument', { docId }), { closed: false });
  assert.deepEqual(fake.closed, []);
  // While the user's decode holds the engine, another session's own document waits its turn, told why.
  const own = await other.open();
  await assert.rejects(other.decode(own), /decoding a document of another window/);
  fake.finishAll();
  await decoding;
  await assert.rejects(other.decode(docId), /no longer open/);
  assert.deepEqual(await user.ask('closeDocument', { docId }), { closed: true });
});

test('a session that ends stops its decode and then releases its documents', { skip: noAddon }, async () => {
  const fake = fakePipeline();
  const engine = new SharedEngine(fake.pipeline);
  const user = sessionOn(engine);
  const first = await user.open();
  const second = await user.open();
  const decoding = user.decode(first);
  await decodeStarted(fake.signals, 1);
  user.session.end();
  assert.ok(fake.signals[0]!.aborted);
  assert.deepEqual(fake.closed, [], 'the decode still reads its document until it returns');
  assert.deepEqual(await decoding, { cancelled: true });
  assert.deepEqual(fake.closed.sort(), [first, second]);
  // The engine is free for the next session.
  const next = sessionOn(engine);
  const decodingNext = next.decode(await next.open());
  await decodeStarted(fake.signals, 2);
  fake.finishAll();
  assert.deepEqual(await decodingNext, { cancelled: false });
});

test('a session that ends while idle releases its documents at once', async () => {
  const fake = fakePipeline();
  const user = sessionOn(new SharedEngine(fake.pipeline));
  const docId = await user.open();
  user.session.end();
  assert.deepEqual(fake.closed, [docId]);
});

test('a session holds a bounded number of documents; others still open theirs', async () => {
  const fake = fakePipeline();
  const engine = new SharedEngine(fake.pipeline);
  const user = sessionOn(engine);
  const opens = await Promise.all(Array.from({ length: MAX_DOCUMENTS_PER_SESSION + 1 }, () => user.open().then(() => 'opened', (e: Error) => e.message)));
  assert.equal(opens.filter((o) => o === 'opened').length, MAX_DOCUMENTS_PER_SESSION);
  assert.match(opens.find((o) => o !== 'opened')!, /documents are open in this window already; close one first/);
  assert.match(await sessionOn(engine).open(), /^d\d+$/);
});

test('open documents are bounded in bytes across all sessions, and closing one makes room', async () => {
  const fake = fakePipeline();
  const engine = new SharedEngine(fake.pipeline);
  const twoThirds = Buffer.alloc(Math.floor((MAX_OPEN_DOCUMENT_BYTES * 2) / 3)).toString('base64');
  const a = sessionOn(engine);
  const b = sessionOn(engine);
  const first = (await a.ask('openDocument', { name: 'big.png', bytes: twoThirds })).doc.docId;
  await assert.rejects(b.ask('openDocument', { name: 'also-big.png', bytes: twoThirds }),
    /also-big\.png: the engine holds \d+ MB of open documents from all windows and tabs, and keeps at most 400 MB/);
  await b.open();
  await a.ask('closeDocument', { docId: first });
  await b.ask('openDocument', { name: 'also-big.png', bytes: twoThirds });
  // A session that goes away gives its documents' bytes back.
  b.session.end();
  await a.ask('openDocument', { name: 'big.png', bytes: twoThirds });
});
