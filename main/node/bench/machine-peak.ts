// This machine's measured peaks, the yardstick for the engine's achieved GFLOP/s and GB/s: memory copy
// bandwidth measured here in JS, single-precision GEMM throughput measured with numpy's BLAS.
import { spawnSync } from 'node:child_process';

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

export function sgemmGflops(): number | null {
  const python = process.env.SACCADE_PYTHON ?? '/usr/bin/python3';
  const code = 'import numpy as np,time\na=np.random.rand(1024,1024).astype(np.float32);b=a.copy();a@b\n' +
    'best=min((lambda t:(a@b,time.perf_counter()-t)[1])(time.perf_counter()) for _ in range(5))\nprint(2*1024**3/best/1e9)';
  const r = spawnSync(python, ['-c', code], { encoding: 'utf8' });
  const v = Number(r.stdout?.trim());
  return r.status === 0 && Number.isFinite(v) ? v : null;
}
