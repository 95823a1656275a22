import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventBatch, RequestMap, RequestName, SessionEvent } from '../../common/protocol';
import { createSession } from '../../renderer/src/state/session-store';
import type { Transport } from '../../renderer/src/transport/transport';
import { buildSyntheticDecode } from '../support/synthetic-decode';

type Handlers = { [N in RequestName]?: (params: RequestMap[N][0]) => Promise<RequestMap[N][1]> };

const synthetic = buildSyntheticDecode();
const page = Buffer.from('not really a png').toString('base64');

/** A transport whose requests are answered by the test; events are pushed by hand, as the synthetic document's. */
function fakeTransport(handlers: Handlers) {
  const listeners = new Set<(batch: EventBatch) => void>();
  const calls: Array<{ name: RequestName; params: unknown }> = [];
  const transport: Transport = {
    kind: 'websocket',
    request: async (name, params) => {
      calls.push({ name, params });
      const h = handlers[name] as ((p: unknown) => Promise<unknown>) | undefined;
      if (!h) throw new Error(`unexpected request ${name}`);
      return h(params) as never;
    },
    onEvents: (l) => { listeners.add(l); return () => listeners.delete(l); },
  };
  const push = (events: SessionEvent[], docId: string | null = synthetic.doc.docId) => { for (const l of listeners) l({ docId, events }); };
  return { transport, calls, push };
}

/** Runs frame callbacks when the test says so, like requestAnimationFrame. */
function frames() {
  const queue: Array<() => void> = [];
  return { schedule: (f: () => void) => void queue.push(f), run: () => { for (const f of queue.splice(0)) f(); }, pending: () => queue.length };
}

test('opening a sample decodes it, with events applied once per frame', async () => {
  let finish!: (r: RequestMap['decode'][1]) => void;
  const fake = fakeTransport({
    openSample: async () => ({ doc: synthetic.doc, bytes: page }),
    decode: () => new Promise((resolve) => { finish = resolve; }),
  });
  const f = frames();
  const { store, actions } = createSession(fake.transport, null, f.schedule);
  const opened = actions.openSample('sample-report.png');
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(store.getState().phase, 'decoding');
  const revision = store.getState().revision;
  for (const batch of synthetic.batches) fake.push(batch);
  assert.equal(f.pending(), 1, 'every batch before the next frame shares one flush');
  f.run();
  assert.equal(store.getState().revision, revision + 1);
  assert.equal(store.getState().run!.regions.get('p0-r4')!.status, 'done');
  finish({ cancelled: false });
  await opened;
  assert.equal(store.getState().phase, 'done');
  const decode = fake.calls.find((c) => c.name === 'decode')!.params as RequestMap['decode'][0];
  assert.equal(decode.options.mode, 'spec');
});

test('a batch naming another document is not applied, though its region ids are the same', async () => {
  const fake = fakeTransport({
    openSample: async () => ({ doc: synthetic.doc, bytes: page }),
    decode: () => new Promise(() => undefined),
  });
  const f = frames();
  const { store, actions } = createSession(fake.transport, null, f.schedule);
  void actions.openSample('sample-report.png');
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(store.getState().phase, 'decoding');
  fake.push(synthetic.batches[0]!);
  f.run();
  const run = store.getState().run!;
  assert.ok(run.regions.size > 0, 'the window\'s own layout is applied');
  // Another window decoding the same sample: the same region ids and tokens, under its own document id.
  for (const batch of buildSyntheticDecode({ docId: 'another-window' }).batches.slice(1)) fake.push(batch, 'another-window');
  f.run();
  assert.equal(run.tokens, 0);
  assert.ok([...run.regions.values()].every((r) => r.status === 'pending'));
  for (const batch of synthetic.batches.slice(1)) fake.push(batch);
  f.run();
  assert.ok(run.tokens > 0, 'the window\'s own tokens are applied');
});

test('a file the engine refuses leaves a clear notice and the previous state', async () => {
  const fake = fakeTransport({ openDocument: async () => { throw new Error('empty.png: the file is empty (0 bytes)'); } });
  const { store, actions } = createSession(fake.transport, null, frames().schedule);
  await actions.openFile('empty.png', new Uint8Array());
  assert.equal(store.getState().doc, null);
  assert.equal(store.getState().phase, 'idle');
  assert.deepEqual(store.getState().notices.map(({ kind, text, topic }) => ({ kind, text, topic })), [{ kind: 'error', text: 'Could not open empty.png: the file is empty (0 bytes)', topic: 'action' }]);
});

test('an engine crash keeps the run, and restarting reopens the document and decodes the unfinished page', async () => {
  let decodes = 0;
  const fake = fakeTransport({
    // A restarted engine is asked which model it runs before the document is opened again.
    hello: async () => ({ engine: { version: 'test', backends: ['cpu'], backend: 'cpu', cpuFeatures: {}, cpuKernels: 'generic', cpuKernelSets: ['generic'], threads: 1 },
      model: { name: 'saccade-ocr-tiny', parameters: 0, path: '', mtpHead: false, drafter: true, modelType: 'saccade_ocr', card: null, embedded: true } }),
    openSample: async () => ({ doc: { ...synthetic.doc, docId: decodes === 0 ? synthetic.doc.docId : 'reopened' }, bytes: page }),
    decode: async () => {
      decodes++;
      if (decodes === 1) throw new Error('the engine process was killed by SIGSEGV');
      return { cancelled: false };
    },
  });
  const f = frames();
  const { store, actions } = createSession(fake.transport, null, f.schedule);
  fake.push(synthetic.batches[0]!);
  const opened = actions.openSample('sample-report.png');
  await new Promise((r) => setTimeout(r, 0));
  for (const batch of synthetic.batches.slice(0, 6)) fake.push(batch);
  fake.push([{ type: 'engine_crashed', reason: 'the engine process was killed by SIGSEGV' }], null);
  f.run();
  await opened;
  assert.equal(store.getState().phase, 'crashed');
  assert.match(store.getState().crashReason!, /SIGSEGV/);
  const run = store.getState().run!;
  assert.ok(run.tokens > 0, 'tokens decoded before the crash are kept until the restart');

  await actions.restartAfterCrash();
  assert.equal(store.getState().engine.model?.name, 'saccade-ocr-tiny', 'the model is learnt again from the restarted engine');
  assert.equal(store.getState().run, run, 'the restart continues the same run');
  const decode = fake.calls.filter((c) => c.name === 'decode').at(-1)!.params as RequestMap['decode'][0];
  assert.deepEqual(decode.pages, [0]);
  assert.equal(decode.docId, 'reopened');
  assert.equal(store.getState().phase, 'done');
});

test('settings and theme are remembered in storage', () => {
  const map = new Map<string, string>();
  const storage = { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v), removeItem: (k: string) => void map.delete(k) };
  const first = createSession(fakeTransport({}).transport, storage, frames().schedule);
  first.actions.updateSettings({ mode: 'ar', keepRatio: 0.25 });
  first.actions.setTheme('light');
  const second = createSession(fakeTransport({}).transport, storage, frames().schedule);
  assert.equal(second.store.getState().settings.mode, 'ar');
  assert.equal(second.store.getState().settings.keepRatio, 0.25);
  assert.equal(second.store.getState().theme, 'light');
});
