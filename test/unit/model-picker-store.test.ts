// The session store's side of the model picker: a switch adopts the model the engine reports (and the modes
// it can run), a failed one keeps the model and says why, and after an engine restart the UI learns the model
// again (a restarted engine is back on the embedded one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineInfo } from '../../common/engine-types';
import type { ModelInfo, RequestMap, RequestName } from '../../common/protocol';
import { createSession } from '../../renderer/src/state/session-store';
import type { Transport } from '../../renderer/src/transport/transport';

type Handlers = { [N in RequestName]?: (params: RequestMap[N][0]) => Promise<RequestMap[N][1]> };

const ENGINE: EngineInfo = { version: 'test', backends: ['cpu'], backend: 'cpu', cpuFeatures: {}, cpuKernels: 'generic', cpuKernelSets: ['generic'], threads: 1 };
const EMBEDDED: ModelInfo = { name: 'saccade-ocr-tiny', parameters: 5e6, path: '/app/models/saccade-ocr-tiny', mtpHead: true, drafter: true, modelType: 'saccade_ocr', card: '# Tiny', embedded: true };
const GLM: ModelInfo = { name: 'glm-ocr', parameters: 9e8, path: '/models/glm-ocr', mtpHead: true, drafter: false, modelType: 'glm_ocr', card: null, embedded: false };

function sessionWith(handlers: Handlers) {
  const transport: Transport = {
    kind: 'websocket',
    request: async (name, params) => {
      const h = handlers[name] as ((p: unknown) => Promise<unknown>) | undefined;
      if (!h) throw new Error(`unexpected request ${name}`);
      return h(params) as never;
    },
    onEvents: () => () => undefined,
  };
  return createSession(transport, null, (f) => f());
}

test('a switch to a GLM-OCR folder adopts its model, its vocabulary and a mode it can run', async () => {
  const recent: string[] = [];
  const { store, actions } = sessionWith({
    hello: async () => ({ engine: ENGINE, model: EMBEDDED, vocab: ['a'] }),
    listSamples: async () => [],
    switchModel: async ({ dir }) => { recent.unshift(dir!); return { model: GLM, vocab: ['b', 'c'] }; },
    recentModels: async () => ({ folders: recent }),
  });
  await actions.connect();
  assert.equal(store.getState().settings.mode, 'spec');
  await actions.switchModel('/models/glm-ocr');
  const s = store.getState();
  assert.equal(s.engine.model, GLM);
  assert.deepEqual(s.vocab, ['b', 'c']);
  assert.equal(s.settings.mode, 'mtp', 'self-speculative decoding gave way to the MTP head');
  assert.deepEqual(s.models, { recent: ['/models/glm-ocr'], switching: false, error: null, nativeDialog: false });
});

test('a failed switch keeps the model and shows the engine\'s one line', async () => {
  const { store, actions } = sessionWith({
    hello: async () => ({ engine: ENGINE, model: EMBEDDED }),
    listSamples: async () => [],
    switchModel: async () => { throw new Error('/models/none: no such folder'); },
  });
  await actions.connect();
  await actions.switchModel('/models/none');
  assert.equal(store.getState().engine.model, EMBEDDED);
  assert.equal(store.getState().models.error, '/models/none: no such folder');
  assert.equal(store.getState().models.switching, false);
});
