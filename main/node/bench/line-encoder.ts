// The benchmark's line-encoder section: our engine's image encoding of text lines, at the precision it ships
// and in fp32, against onnxruntime running the same pretrained recogniser (PP-OCRv4's ONNX file, the source of
// our converted weights) on the same lines, with the same threads; and what the reduced precision costs in
// accuracy on the same lines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DECODE_OPTIONS, type DecodeOptions } from '../../../common/engine-types';
import type { NativeModel } from '../engine/native-addon';
import type { BenchRegion } from './bench-regions';
import { keepFastest, meanScore, runConfig, sum, type ConfigOutcome } from './run-config';
import { loadOnnxruntime, type Ort } from './onnxruntime';

interface EncoderConfig {
  stem_channels: number;
  blocks: Array<{ in: number; out: number; kernel: number; stride: [number, number]; se: boolean }>;
  pool: [number, number];
  neck: { reduce: number; dim: number; depth: number; mlp_ratio: number };
  num_classes: number;
}

interface LineShape { height: number; column: number; max_width: number }

export function readLineModel(modelDir: string): { encoder: EncoderConfig; image: LineShape } | null {
  const cfg = JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8')) as {
    vision_config: { type?: string; encoder?: EncoderConfig }; image: LineShape;
  };
  return cfg.vision_config.type === 'pp_ocr_line' && cfg.vision_config.encoder ? { encoder: cfg.vision_config.encoder, image: cfg.image } : null;
}

/** The engine's input width for a w x h crop (native/src/model/image_preprocess.cc, line_width). */
export function lineWidth(image: LineShape, w: number, h: number): number {
  const cols = Math.ceil((w * image.height) / Math.max(1, h) / image.column);
  return Math.min(image.max_width, Math.max(2 * image.column, cols * image.column));
}

/** Multiply-adds x 2 of the encoder on one line of `width` pixels: convolutions, neck and CTC head. */
export function encoderFlops(e: EncoderConfig, height: number, width: number): number {
  let H = Math.ceil(height / 2), W = Math.ceil(width / 2);
  let flops = 2 * H * W * 9 * e.stem_channels;
  for (const b of e.blocks) {
    H = Math.ceil(H / b.stride[0]);
    W = Math.ceil(W / b.stride[1]);
    flops += 2 * H * W * b.in * b.kernel * b.kernel + 2 * H * W * b.in * b.out;
    if (b.se) flops += 2 * 2 * b.in * (b.in / 4);
  }
  const T = Math.floor(W / e.pool[1]), C = e.blocks.at(-1)!.out, R = e.neck.reduce, N = e.neck.dim;
  const mixer = 4 * N * N + 2 * N * N * e.neck.mlp_ratio + 2 * T * N;  // q, k, v, proj; MLP; attention
  flops += 2 * T * (3 * C * R + R * N + e.neck.depth * mixer + N * C + 2 * 3 * C * R + R * N + N * e.num_classes);
  return flops;
}

// Decoding stops after one token: the encode stage is what is timed, the decoder stays out of it.
const ENCODE_ONLY: DecodeOptions = {
  ...DEFAULT_DECODE_OPTIONS, mode: 'ar', temperature: 0, maxNewTokens: 1, batchSize: 1, fixation: { ...DEFAULT_DECODE_OPTIONS.fixation, enabled: false },
};
const READ: DecodeOptions = { ...ENCODE_ONLY, maxNewTokens: 256 };

/** One pass of the engine's encode stage over the lines. */
function encodePass(model: NativeModel, lines: BenchRegion[]): Promise<ConfigOutcome> {
  return runConfig(model, lines, 'encode', ENCODE_ONLY);
}

/**
 * One pass of onnxruntime over the lines at the engine's input sizes, each line's time after a warm-up run of
 * its shape. The session lives for the pass only: its idle threads would otherwise spin beside the engine's.
 */
async function onnxruntimePass(ort: Ort, onnxFile: string, threads: number, inputs: Array<{ width: number; pixels: Float32Array }>, height: number): Promise<number[]> {
  const session = await ort.InferenceSession.create(onnxFile, { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const name = session.inputNames[0]!;
  const times: number[] = [];
  for (const { width, pixels } of inputs) {
    const x = new ort.Tensor('float32', pixels, [1, 3, height, width]);
    await session.run({ [name]: x });
    const t = process.hrtime.bigint();
    await session.run({ [name]: x });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  await session.release();
  return times;
}

/** The grey line resized (nearest pixel: the timing does not depend on it) and normalised, in three channels. */
function onnxInput(r: BenchRegion, width: number, height: number): Float32Array {
  const { pixels, width: w, height: h } = r.input;
  const out = new Float32Array(3 * width * height);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(h - 1, Math.floor(((y + 0.5) * h) / height));
    for (let x = 0; x < width; x++) {
      const v = pixels[sy * w + Math.min(w - 1, Math.floor(((x + 0.5) * w) / width))]! / 127.5 - 1;
      for (let c = 0; c < 3; c++) out[(c * height + y) * width + x] = v;
    }
  }
  return out;
}

export interface LineEncoderReport {
  lines: number;
  pixels_wide: number;
  threads: number;
  cpu_kernels: string;
  ms: { ours: number; ours_fp32: number; onnxruntime: number | null };
  ours_vs_onnxruntime: number | null;
  ours_fp32_vs_onnxruntime: number | null;
  reduced_vs_fp32: number;
  gflops: { ours: number; ours_fp32: number; onnxruntime: number | null };
  share_of_sgemm_peak: { ours: number | null; ours_fp32: number | null };
  accuracy: { ours: number; ours_fp32: number; cer_change_points: number };
}

export async function lineEncoderSection(opts: {
  model: NativeModel; fp32: NativeModel; modelDir: string; onnxFile: string; regions: BenchRegion[]; passes: number;
  threads: number; cpuKernels: string; sgemmPeak: number | null;
}): Promise<LineEncoderReport | null> {
  const line = readLineModel(opts.modelDir);
  const lines = opts.regions.filter((r) => r.input.kind === 'text');
  if (!line || lines.length === 0) return null;
  const widths = lines.map((r) => lineWidth(line.image, r.input.width, r.input.height));
  const flops = widths.reduce((s, w) => s + encoderFlops(line.encoder, line.image.height, w), 0);
  const ort = await loadOnnxruntime();
  const inputs = lines.map((r, i) => ({ width: widths[i]!, pixels: onnxInput(r, widths[i]!, line.image.height) }));
  // The three run in turn in every pass, so that each sees the machine in the same states; each line keeps its
  // fastest time of the passes.
  let bestOurs: ConfigOutcome | null = null;
  let bestFp32: ConfigOutcome | null = null;
  let bestOrt: number[] | null = null;
  for (let p = 0; p < opts.passes; p++) {
    const a = await encodePass(opts.model, lines);
    bestOurs = bestOurs ? keepFastest(bestOurs, a) : a;
    const b = await encodePass(opts.fp32, lines);
    bestFp32 = bestFp32 ? keepFastest(bestFp32, b) : b;
    if (ort) {
      const t = await onnxruntimePass(ort, opts.onnxFile, opts.threads, inputs, line.image.height);
      bestOrt = bestOrt ? bestOrt.map((x, k) => Math.min(x, t[k]!)) : t;
    }
  }
  const ours = sum(bestOurs!, (r) => r.stats.encodeMs);
  const fp32 = sum(bestFp32!, (r) => r.stats.encodeMs);
  const ortMs = bestOrt ? bestOrt.reduce((x, y) => x + y, 0) : null;
  const accuracy = meanScore(await runConfig(opts.model, lines, 'read', READ));
  const accuracyFp32 = meanScore(await runConfig(opts.fp32, lines, 'read', READ));
  const gflops = (ms: number) => Number((flops / (ms / 1000) / 1e9).toFixed(1));
  const share = (ms: number) => (opts.sgemmPeak ? Number((flops / (ms / 1000) / 1e9 / opts.sgemmPeak).toFixed(3)) : null);
  const r3 = (x: number) => Number(x.toFixed(3));
  return {
    lines: lines.length,
    pixels_wide: widths.reduce((s, w) => s + w, 0),
    threads: opts.threads,
    cpu_kernels: opts.cpuKernels,
    ms: { ours: Number(ours.toFixed(1)), ours_fp32: Number(fp32.toFixed(1)), onnxruntime: ortMs === null ? null : Number(ortMs.toFixed(1)) },
    ours_vs_onnxruntime: ortMs === null ? null : r3(ortMs / ours),
    ours_fp32_vs_onnxruntime: ortMs === null ? null : r3(ortMs / fp32),
    reduced_vs_fp32: r3(fp32 / ours),
    gflops: { ours: gflops(ours), ours_fp32: gflops(fp32), onnxruntime: ortMs === null ? null : gflops(ortMs) },
    share_of_sgemm_peak: { ours: share(ours), ours_fp32: share(fp32) },
    accuracy: { ours: Number(accuracy.toFixed(4)), ours_fp32: Number(accuracyFp32.toFixed(4)), cer_change_points: Number((100 * (accuracyFp32 - accuracy)).toFixed(3)) },
  };
}
