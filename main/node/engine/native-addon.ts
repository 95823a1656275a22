// Locates and loads the native engine. The same .node file serves plain Node and Electron (Node-API).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import type { GrayImage } from '../pipeline/gray-image';
import { DEFAULT_DECODE_OPTIONS, type DecodeMode, type DecodeOptions, type DecodeResult, type EngineEvent, type EngineInfo, type RegionInput } from '../../../common/engine-types';

export interface NativeModel {
  info(): Record<string, unknown>;
  decode(
    regions: RegionInput[],
    options: DecodeOptions,
    onEvents: (events: EngineEvent[]) => void,
  ): { promise: Promise<DecodeResult>; cancel(): void };
  /** Each token id's text as the engine read it at load ('' for special tokens): the one reading of tokenizer.json. */
  vocabulary(): string[];
  /** Seconds per decoder forward of each width over a cache of `context` tokens. */
  benchmark(opts: { widths?: number[]; context?: number; repeats?: number }): Promise<ForwardCost>;
  close(): void;
}

export interface ForwardCost {
  widths: number[];
  seconds: number[];
  context: number;
}

/** One output map of a page-analysis network: [height, width, channels], row-major. */
export interface NetMap {
  height: number;
  width: number;
  channels: number;
  data: Float32Array;
}

export interface PageAnalysisInfo {
  dir: string;
  backend: string;
  parameters: number;
  /** Per network: its one input size (height, width; 0 for any size whose sides are `multiple`s), labels, strides. */
  nets: Record<string, { height: number; width: number; multiple: number; labels: string[]; strides: number[] }>;
}

/** The page-analysis networks (native/src/page): run(net, images) -> per image, its output maps. */
export interface NativePageAnalysis {
  info(): PageAnalysisInfo;
  run(net: string, images: Array<{ width: number; height: number; pixels: Uint8Array }>): Promise<NetMap[][]>;
  close(): void;
}

export interface NativeAddon {
  info(): EngineInfo;
  /**
   * reducedPrecision (default true): the line encoder's pointwise convolutions in reduced products (bf16 pairs or
   * grouped bytes) where the CPU has them and measures them faster (docs/decisions/0032, 0049); false: fp32
   * throughout.
   */
  loadModel(dir: string, opts?: { threads?: number; backend?: string; reducedPrecision?: boolean }): Promise<NativeModel>;
  loadPageAnalysis(dir: string, opts?: { threads?: number; backend?: string }): Promise<NativePageAnalysis>;
  /** The page pipeline's pixel work (native/src/page/gray_image.h); each returns a new image. */
  resampleGray(image: GrayImage, width: number, height: number): GrayImage;
  blur3Gray(image: GrayImage, centre: number, side: number): GrayImage;
  sampleRectGray(page: GrayImage, rect: { cx: number; cy: number; width: number; height: number; ux: number; uy: number }, width: number, height: number): GrayImage;
}

/** Project root in development, the app's resources folder when packaged. */
export function resourceRoot(): string {
  const packaged = (process as { resourcesPath?: string }).resourcesPath;
  if (packaged && existsSync(join(packaged, 'native'))) return packaged;
  // Bundled code runs from out/main or from a shared chunk in out/main/chunks: walk up to the package root.
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export function addonPath(): string {
  return join(resourceRoot(), 'native', 'build', 'Release', 'saccade.node');
}

let loaded: NativeAddon | null = null;

/** The native engine, loaded once per process (the page pipeline calls into it for every line's pixels). */
export function loadAddon(): NativeAddon {
  if (loaded) return loaded;
  const path = addonPath();
  if (!existsSync(path)) {
    throw new Error(`The native engine is not built (${path} is missing): run 'npm run build:native'.`);
  }
  loaded = createRequire(__filename)(path) as NativeAddon;
  return loaded;
}

/** The most threads loadModel takes (binding/addon.cc refuses more): beyond that they only starve the machine. */
export function maxThreads(): number {
  return 2 * availableParallelism();
}

export function pageAnalysisDir(): string {
  return join(resourceRoot(), 'assets', 'models', 'page-analysis');
}

export function defaultModelDir(): string {
  return join(resourceRoot(), 'assets', 'models', 'saccade-ocr-tiny');
}

/**
 * The mode a model reads with unless told: a GLM-OCR folder decodes with AR or its MTP layer (self-speculation
 * and diffusion need a converted checkpoint); a Saccade checkpoint with the default.
 */
export function defaultDecodeMode(info: Record<string, unknown>): DecodeMode {
  if (info.modelType === 'glm_ocr') return info.mtpHead ? 'mtp' : 'ar';
  return DEFAULT_DECODE_OPTIONS.mode;
}
