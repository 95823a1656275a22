// `npm run bench -- [--json FILE] [--per-type N] [--real N] [--pages N] [--passes N] [--data DIR] [--regions DIR]
//   [--model DIR] [--focal-layers N] [--kernel-sets avx2,avx512,...] [--pages-only]`
// Runs the shipped model over a fixed evaluation set and measures, side by side in one run: AR, self-spec
// (B=32), self-spec with the automatic block size, pure diffusion (tau_c 0.7/0.9/0.99), each with and without
// visual fixation, plus the engine's forward cost by width, the line encoder against onnxruntime, and whole
// real pages through the page pipeline in AR and self-spec, that section again on every CPU kernel set the machine
// runs (pages_by_kernels; --kernel-sets names them), and with --pages-only the page section alone. Keys are
// documented in docs/benchmark.md.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_DECODE_OPTIONS, type DecodeOptions, type RegionKind } from '../../common/engine-types';
import { makeBenchRegions, readBenchRegions } from './bench/bench-regions';
import { lineEncoderSection, readLineModel, referenceOnnx } from './bench/line-encoder';
import { pageSection } from './bench/page-section';
import { defaultKernelSets, pagesByKernelSet } from './bench/pages-by-kernels';
import { copyBandwidthGBs, sgemmGflops } from './bench/machine-peak';
import { decodeMs, endToEndMs, keepFastest, meanScore, runConfig, sum, tokensPerForward, type ConfigOutcome } from './bench/run-config';
import { defaultModelDir, loadAddon, resourceRoot } from './engine/native-addon';
import { wholeNumber } from './inputs/number-options';
import { ReaderEngines } from './engine/reader-engines';

interface Args {
  json: string | null; perType: number; real: number; pages: number; passes: number; data: string | null; regions: string | null; model: string; focalLayers: number;
  kernelSets: string[] | null; pagesOnly: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { json: null, perType: 6, real: 6, pages: 10, passes: 3, data: null, regions: null, model: defaultModelDir(), focalLayers: DEFAULT_DECODE_OPTIONS.fixation.focalLayers, kernelSets: null, pagesOnly: false };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    switch (argv[i]) {
      case '--json': a.json = v ?? null; i++; break;
      case '--per-type': a.perType = wholeNumber('--per-type', v ?? '', 0, 1000); i++; break;
      case '--real': a.real = wholeNumber('--real', v ?? '', 0, 1000); i++; break;
      case '--pages': a.pages = wholeNumber('--pages', v ?? '', 0, 1000); i++; break;
      case '--passes': a.passes = wholeNumber('--passes', v ?? '', 1, 100); i++; break;
      case '--data': a.data = v ?? null; i++; break;
      case '--regions': a.regions = v ?? null; i++; break;
      case '--model': a.model = v ?? a.model; i++; break;
      // The engine checks it against the model's decoder layers.
      case '--focal-layers': a.focalLayers = wholeNumber('--focal-layers', v ?? '', 1, 64); i++; break;
      case '--kernel-sets': a.kernelSets = (v ?? '').split(',').filter(Boolean); i++; break;
      case '--pages-only': a.pagesOnly = true; break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return a;
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : null);
const round = (x: number | null, digits = 4) => (x === null ? null : Number(x.toFixed(digits)));

// What the "+fixation" configurations prune: each row keeps 5% of a region's image tokens (at least one), the
// handful of columns around the character being written. The share attended stays above the ratio where
// rounding up to whole tokens and each kind's first (warm-up) region weigh: on the 42 regions (AR) 0.111 at
// 0.08, 0.083 at 0.05, 0.043 at 0.03, accuracy kept 1.000, 1.000, 0.999 (docs/decisions/0004). The app's
// default keeps every token (docs/decisions/0012); the benchmark measures what pruning would cost.
const PRUNING_KEEP_RATIO = 0.05;

function configs(focalLayers: number, mtpHead: boolean): Array<[string, DecodeOptions]> {
  // One region at a time: speculation is a latency technique, and per-region times stay comparable.
  const base: DecodeOptions = { ...DEFAULT_DECODE_OPTIONS, temperature: 0, maxNewTokens: 256, batchSize: 1 };
  const modes: Array<[string, Partial<DecodeOptions>]> = [
    ['ar', { mode: 'ar' }],
    ['spec32', { mode: 'spec', blockSize: 32 }],
    ['spec_auto', { mode: 'spec', blockSize: 'auto' }],
    // The drafter GLM-OCR ships (docs/decisions/0018): the in-house baseline, when the checkpoint has a head.
    ...(mtpHead ? [['mtp3', { mode: 'mtp', blockSize: 3 }], ['mtp_auto', { mode: 'mtp', blockSize: 'auto' }]] as Array<[string, Partial<DecodeOptions>]> : []),
    ['diffusion_0.7', { mode: 'diffusion', blockSize: 32, tauC: 0.7 }],
    ['diffusion_0.9', { mode: 'diffusion', blockSize: 32, tauC: 0.9 }],
    ['diffusion_0.99', { mode: 'diffusion', blockSize: 32, tauC: 0.99 }],
  ];
  return [
    ...modes.flatMap(([name, o]): Array<[string, DecodeOptions]> => [
      [name, { ...base, ...o, fixation: { ...base.fixation, enabled: false } }],
      [`${name}+fixation`, { ...base, ...o, fixation: { ...base.fixation, enabled: true, focalLayers, keepRatio: PRUNING_KEEP_RATIO } }],
    ]),
    // The heatmaps as the app shows them: focal layers found, nothing pruned.
    ['ar+heatmaps', { ...base, mode: 'ar', fixation: { ...base.fixation, enabled: true, focalLayers } }],
  ];
}

/** A speculative configuration against AR: its tokens per forward, exactness and speed. */
function speculation(o: ConfigOutcome, ar: ConfigOutcome) {
  return {
    tokens_per_forward: round(tokensPerForward(o), 3),
    identical_to_ar: round(sameOutputs(o, ar), 4),
    decode_speedup_vs_ar: round(ratio(decodeMs(ar), decodeMs(o)), 3),
    e2e_speedup_vs_ar: round(ratio(endToEndMs(ar), endToEndMs(o)), 3),
  };
}

function sameOutputs(a: ConfigOutcome, b: ConfigOutcome): number {
  return a.regions.filter((r, i) => r.text === b.regions[i]!.text).length / Math.max(1, a.regions.length);
}

function acceptedPerRoundByType(o: ConfigOutcome): Record<string, { accepted_per_round: number | null }> {
  const out: Record<string, { accepted_per_round: number | null }> = {};
  for (const kind of ['text', 'table', 'formula'] as RegionKind[]) {
    const rounds = o.regions.filter((r) => r.kind === kind).flatMap((r) => r.acceptedPerRound);
    out[kind] = { accepted_per_round: round(rounds.length ? rounds.reduce((s, x) => s + x, 0) / rounds.length : null, 2) };
  }
  return out;
}

/** How the automatic block size chose: share of plain AR steps and the mean block of speculative rounds. */
function blockChoices(o: ConfigOutcome): { ar_step_share: number | null; mean_block_size: number | null } {
  const all = o.regions.flatMap((r) => r.blockSizes);
  const spec = all.filter((b) => b > 0);
  return {
    ar_step_share: round(all.length ? (all.length - spec.length) / all.length : null, 3),
    mean_block_size: round(spec.length ? spec.reduce((s, b) => s + b, 0) / spec.length : null, 2),
  };
}

function decoderShape(modelDir: string) {
  const cfg = JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8')) as {
    text_config: { hidden_size: number; num_layers: number; num_attention_heads: number; num_key_value_heads: number; head_dim: number; intermediate_size: number; vocab_size: number };
  };
  const t = cfg.text_config;
  const perLayer = t.hidden_size * t.head_dim * (2 * t.num_attention_heads + 2 * t.num_key_value_heads) + 3 * t.hidden_size * t.intermediate_size;
  return { ...t, params: t.num_layers * perLayer + t.vocab_size * t.hidden_size };
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`bench: ${(err as Error).message}`);
    process.exit(2);
  }
  const dataRoot = args.data ?? join(resourceRoot(), '..', 'shared', 'data', 'real-dev');
  if (args.pagesOnly) return pagesOnly(args, dataRoot);
  const regions = args.regions
    ? readBenchRegions(args.regions)
    : makeBenchRegions(mkdtempSync(join(tmpdir(), 'saccade-bench-')), args.perType, args.real, args.data);
  const addon = loadAddon();
  const modelDir = args.model;
  const engines = new ReaderEngines(addon, modelDir);
  const model = await engines.first();
  console.log(`bench: ${regions.length} regions, backend ${addon.info().backend}, model ${modelDir}`);

  const results = new Map<string, ConfigOutcome>();
  for (let pass = 1; pass <= args.passes; pass++) {
    for (const [name, options] of configs(args.focalLayers, Boolean(model.info().mtpHead))) {
      const o = await runConfig(model, regions, name, options);
      const earlier = results.get(name);
      results.set(name, earlier ? keepFastest(earlier, o) : o);
      console.log(`pass ${pass} ${name.padEnd(24)} tokens ${String(sum(o, (r) => r.stats.tokens)).padStart(6)}  tok/fwd ${tokensPerForward(o).toFixed(2).padStart(6)}  decode ${decodeMs(o).toFixed(0).padStart(7)} ms  accuracy ${meanScore(o).toFixed(3)}`);
    }
  }
  const get = (n: string) => results.get(n)!;
  const ar = get('ar');
  const arFix = get('ar+fixation');
  const heatmaps = get('ar+heatmaps');
  const attention = (o: ConfigOutcome) => sum(o, (r) => r.stats.attentionMs);

  const widths = Array.from({ length: 64 }, (_, i) => i + 1);
  const cost = await model.benchmark({ widths, context: 512, repeats: 3 });
  const shape = decoderShape(modelDir);
  const achieved = (w: number) => {
    const s = cost.seconds[cost.widths.indexOf(w)]!;
    const attnFlops = 4 * cost.context * shape.num_attention_heads * shape.head_dim * w * shape.num_layers;
    const kvBytes = 2 * cost.context * shape.num_key_value_heads * shape.head_dim * 4 * shape.num_layers;
    return { seconds: s, gflops: round((2 * shape.params * w + attnFlops) / s / 1e9, 2), gbs: round((4 * shape.params + kvBytes) / s / 1e9, 2) };
  };

  const sgemmPeak = await sgemmGflops(addon.info().threads);
  const fp32 = await addon.loadModel(modelDir, { reducedPrecision: false });
  const lineEncoder = await lineEncoderSection({
    model, fp32, modelDir, regions, passes: args.passes, threads: addon.info().threads, cpuKernels: addon.info().cpuKernels,
    onnxFile: referenceOnnx(readLineModel(modelDir)?.encoder.kind, resourceRoot()), sgemmPeak,
  });
  fp32.close();
  const pages = args.pages > 0
    ? await pageSection(model, await engines.forPages(args.pages), dataRoot, args.pages, PRUNING_KEEP_RATIO, (line) => console.log(line))
    : null;
  await engines.close();
  const pagesByKernels = args.pages > 0
    ? pagesByKernelSet(args.kernelSets ?? defaultKernelSets(addon.info().cpuKernelSets), { script: process.argv[1]!, pages: args.pages, model: modelDir, data: args.data }, (line) => console.log(line))
    : null;

  const report = {
    regions: regions.length,
    passes: args.passes,
    backend: addon.info().backend,
    self_spec: { block_size: 32, ...speculation(get('spec32'), ar), by_type: acceptedPerRoundByType(get('spec32')) },
    self_spec_auto: { ...speculation(get('spec_auto'), ar), ...blockChoices(get('spec_auto')) },
    mtp: results.has('mtp3') ? { drafts: 3, ...speculation(get('mtp3'), ar), by_type: acceptedPerRoundByType(get('mtp3')) } : null,
    mtp_auto: results.has('mtp_auto') ? { ...speculation(get('mtp_auto'), ar), ...blockChoices(get('mtp_auto')) } : null,
    diffusion: [0.7, 0.9, 0.99].map((tau) => {
      const o = get(`diffusion_${tau}`);
      return { tau_c: tau, tokens_per_forward: round(tokensPerForward(o), 3), accuracy: round(meanScore(o)),
        decode_speedup_vs_ar: round(ratio(decodeMs(ar), decodeMs(o)), 3) };
    }),
    fixation: {
      mode: 'ar',
      keep_ratio: PRUNING_KEEP_RATIO,
      focal_layers: args.focalLayers,
      visual_token_fraction: round(sum(arFix, (r) => r.stats.visualTokenFraction * r.stats.forwards) / Math.max(1, sum(arFix, (r) => r.stats.forwards))),
      attention_speedup: round(ratio(attention(ar), attention(arFix)), 3),
      accuracy_retained: round(ratio(meanScore(arFix), meanScore(ar))),
      decode_speedup: round(ratio(decodeMs(ar), decodeMs(arFix)), 3),
      hit_rate: round(arFix.hits.total ? arFix.hits.hits / arFix.hits.total : null),
      hit_tokens: arFix.hits.total,
      heatmap_hit_rate: round(heatmaps.hits.total ? heatmaps.hits.hits / heatmaps.hits.total : null),
      heatmap_hit_tokens: heatmaps.hits.total,
      spec_auto_accuracy_retained: round(ratio(meanScore(get('spec_auto+fixation')), meanScore(get('spec_auto')))),
    },
    forward_cost: cost.widths.map((w, i) => ({ width: w, seconds: cost.seconds[i] })),
    achieved: { width_1: achieved(1), width_33: achieved(33) },
    line_encoder: lineEncoder,
    cpu_kernels: addon.info().cpuKernels,
    pages,
    pages_by_kernels: pagesByKernels,
    machine_peak: { gflops: round(sgemmPeak, 1), copy_gbs: round(copyBandwidthGBs(), 1) },
    configs: [...results.values()].map((o) => ({
      name: o.name, tokens: sum(o, (r) => r.stats.tokens), forwards: sum(o, (r) => r.stats.forwards),
      decode_ms: round(decodeMs(o), 1), e2e_ms: round(endToEndMs(o), 1), accuracy: round(meanScore(o)),
      tokens_per_forward: round(tokensPerForward(o), 3),
    })),
  };
  const text = JSON.stringify(report, null, 2);
  if (args.json) writeFileSync(args.json, text + '\n');
  console.log(text);
}

/** The page section alone, on the kernels this process was given (pages_by_kernels runs it once per set). */
async function pagesOnly(args: Args, dataRoot: string): Promise<void> {
  const addon = loadAddon();
  const engines = new ReaderEngines(addon, args.model);
  const model = await engines.first();
  const cpuKernels = model.info().cpuKernels;  // asked before the engines close: a closed model answers nothing
  const pages = await pageSection(model, await engines.forPages(args.pages), dataRoot, args.pages, PRUNING_KEEP_RATIO, (line) => console.log(line));
  await engines.close();
  const text = JSON.stringify({ cpu_kernels: cpuKernels, pages }, null, 2);
  if (args.json) writeFileSync(args.json, text + '\n');
  else console.log(text);
}

main().catch((err: unknown) => {
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
