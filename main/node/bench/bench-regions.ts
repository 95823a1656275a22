// The fixed evaluation set of the benchmark, written by scripts/make_bench_regions.py (our generator for the
// synthetic regions, ground-truth crops of the real development data where present).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RegionInput, RegionKind } from '../../../common/engine-types';

export interface BenchRegion {
  input: RegionInput;
  source: string;
  target: string;
  /** Word boxes in crop pixels (synthetic regions only). */
  words: Array<{ text: string; x0: number; y0: number; x1: number; y1: number }>;
}

interface IndexEntry {
  id: string;
  kind: RegionKind;
  source: string;
  width: number;
  height: number;
  target: string;
  words: Array<[string, number, number, number, number]>;
}

export function makeBenchRegions(dir: string, perType: number, real: number, data: string | null): BenchRegion[] {
  const python = process.env.SACCADE_PYTHON ?? '/usr/bin/python3';
  const args = ['scripts/make_bench_regions.py', '--out', dir, '--per-type', String(perType), '--real', String(real)];
  if (data) args.push('--data', data);
  const r = spawnSync(python, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error || r.status !== 0) {
    throw new Error(`could not generate the benchmark regions with ${python} (needs numpy, Pillow, OpenCV: apt-get install python3-numpy python3-pil python3-opencv)`);
  }
  return readBenchRegions(dir);
}

export function readBenchRegions(dir: string): BenchRegion[] {
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as IndexEntry[];
  return index.map((e) => ({
    input: {
      id: e.id, kind: e.kind, width: e.width, height: e.height,
      pixels: new Uint8Array(readFileSync(join(dir, `${e.id}.u8`))),
    },
    source: e.source,
    target: e.target,
    words: e.words.map(([text, x0, y0, x1, y1]) => ({ text, x0, y0, x1, y1 })),
  }));
}
