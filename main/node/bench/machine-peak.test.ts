import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { matMulModel } from './machine-peak';

test('the GEMM yardstick is a model onnxruntime loads and that multiplies the two matrices it is given', async () => {
  const n = 3;
  const session = await ort.InferenceSession.create(matMulModel(n), { intraOpNumThreads: 1 });
  const a = Float32Array.from({ length: n * n }, (_, i) => i + 1);
  const b = Float32Array.from({ length: n * n }, (_, i) => (i % 4) - 1);
  const out = await session.run({ A: new ort.Tensor('float32', a, [n, n]), B: new ort.Tensor('float32', b, [n, n]) });
  await session.release();
  const c = out.C!;
  assert.deepEqual(c.dims, [n, n]);
  const expected = Array.from({ length: n * n }, (_, k) => {
    const i = Math.floor(k / n), j = k % n;
    let s = 0;
    for (let q = 0; q < n; q++) s += a[i * n + q]! * b[q * n + j]!;
    return s;
  });
  assert.deepEqual([...(c.data as Float32Array)], expected);
});
