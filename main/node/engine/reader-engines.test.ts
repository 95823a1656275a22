// Which engines a run reads with: every thread of one engine for one page; an engine of one thread per core for
// several pages, shared by the run's documents; one engine for every page on a GPU or where the copies would
// crowd the memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NativeAddon, NativeModel } from './native-addon';
import { ReaderEngines } from './reader-engines';

const GB = 2 ** 30;

/** An addon whose models report `info` (threads as loaded), recording what each load asked for. */
function fakeAddon(info: Record<string, unknown>, loads: Array<{ threads?: number }>): NativeAddon {
  return {
    async loadModel(_dir: string, opts: { threads?: number } = {}) {
      loads.push(opts);
      const model: Partial<NativeModel> = { info: () => ({ threads: 2, ...info, ...(opts.threads ? { threads: opts.threads } : {}) }), close: () => {} };
      return model as NativeModel;
    },
  } as unknown as NativeAddon;
}

const lineModel = { backend: 'cpu', parameters: 5_037_254, weightDtype: 'F32' };

test('one page reads on every thread; several pages on an engine of one thread per core, shared by the run', async () => {
  const loads: Array<{ threads?: number }> = [];
  const engines = new ReaderEngines(fakeAddon(lineModel, loads), 'dir', undefined, () => 8 * GB);
  const one = await engines.forPages(1);
  assert.equal(one.size, 1);
  assert.equal(one.models[0], await engines.first());
  const several = await engines.forPages(40);
  assert.equal(several.size, 2);
  assert.ok(several.models.every((m) => m.info().threads === 1));
  assert.equal(await engines.forPages(3), several, 'documents read side by side share the readers');
  assert.deepEqual(loads, [{}, { threads: 1 }, { threads: 1 }]);
});

test('a GPU, one thread, or copies that would crowd the memory read every page on the one engine', async () => {
  const cases: Array<[Record<string, unknown>, number]> = [
    [{ ...lineModel, backend: 'cuda' }, 8 * GB],
    [{ ...lineModel, threads: 1 }, 8 * GB],
    // A GLM-OCR checkpoint in bf16: two more copies would take 4.2 GB of the 8 GB free.
    [{ backend: 'cpu', parameters: 1_140_000_000, weightDtype: 'BF16' }, 8 * GB],
  ];
  for (const [info, free] of cases) {
    const loads: Array<{ threads?: number }> = [];
    const readers = await new ReaderEngines(fakeAddon(info, loads), 'dir', undefined, () => free).forPages(10);
    assert.equal(readers.size, 1, JSON.stringify(info));
    assert.equal(loads.length, 1);
  }
});
