// This machine's measured peaks, the yardstick for the engine's achieved GFLOP/s and GB/s: memory copy
// bandwidth measured here in JS, single-precision GEMM throughput measured with onnxruntime's own GEMM (MLAS,
// which picks its kernels from the CPU's features) at the threads the engine uses. A system BLAS is not the
// yardstick: Debian's OpenBLAS runs far below this machine's peak where it does not know the CPU model.
import { loadOnnxruntime } from './onnxruntime';

export function copyBandwidthGBs(): number {
  const n = 64 * 1024 * 1024;
  const a = new Float32Array(n / 4).fill(1);
  const b = new Float32Array(n / 4);
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = process.hrtime.bigint();
    b.set(a);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9);
  }
  return (2 * n) / best / 1e9; // read + write
}

/** The best of ten n x n x n float GEMMs, in GFLOP/s; null where onnxruntime-node is not installed. */
export async function sgemmGflops(threads: number, n = 1024): Promise<number | null> {
  const ort = await loadOnnxruntime();
  if (!ort) return null;
  const session = await ort.InferenceSession.create(matMulModel(n), { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const values = new Float32Array(n * n).map((_, i) => ((i * 7919) % 1000) / 1000);
  const feeds = { A: new ort.Tensor('float32', values, [n, n]), B: new ort.Tensor('float32', values, [n, n]) };
  await session.run(feeds);
  let best = Infinity;
  for (let i = 0; i < 10; i++) {
    const t = process.hrtime.bigint();
    await session.run(feeds);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9);
  }
  await session.release();
  return (2 * n ** 3) / best / 1e9;
}

// An ONNX model of one MatMul, C = A B over n x n floats, written as its protobuf bytes (onnx.proto's field
// numbers): a yardstick needs no model file on disk.
export function matMulModel(n: number): Uint8Array {
  const varint = (out: number[], v: number) => {
    for (; v >= 0x80; v = Math.floor(v / 0x80)) out.push((v % 0x80) | 0x80);
    out.push(v);
  };
  const field = (num: number, body: number[] | string | number): number[] => {
    const out: number[] = [];
    if (typeof body === 'number') {
      varint(out, num << 3);
      varint(out, body);
      return out;
    }
    const payload = typeof body === 'string' ? [...Buffer.from(body, 'utf8')] : body;
    varint(out, (num << 3) | 2);
    varint(out, payload.length);
    return out.concat(payload);
  };
  const dim = field(1, field(1, n));
  const matrix = (name: string) => [...field(1, name), ...field(2, field(1, [...field(1, 1), ...field(2, [...dim, ...dim])]))];
  const node = [...field(1, 'A'), ...field(1, 'B'), ...field(2, 'C'), ...field(4, 'MatMul')];
  const graph = [...field(1, node), ...field(2, 'peak'), ...field(11, matrix('A')), ...field(11, matrix('B')), ...field(12, matrix('C'))];
  return Uint8Array.from([...field(1, 7), ...field(8, [...field(1, ''), ...field(2, 13)]), ...field(7, graph)]);
}
