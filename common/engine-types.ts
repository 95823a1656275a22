// The contract between the native engine, main and renderer. Plain data only: every value here crosses
// N-API, Electron message ports and WebSocket unchanged.

/** ar: plain autoregressive; spec: self-speculative (block diffusion drafts); mtp: the model's MTP head drafts
 * (needs a checkpoint with one); diffusion: pure block diffusion. */
export const DECODE_MODES = ['ar', 'spec', 'mtp', 'diffusion'] as const;
export type DecodeMode = (typeof DECODE_MODES)[number];
export type RegionKind = 'text' | 'table' | 'formula';

export interface FixationOptions {
  enabled: boolean;
  /** Decode steps of full attention used to find the focal layers. */
  warmupSteps: number;
  /** How many decoder layers act as focal layers. */
  focalLayers: number;
  /**
   * Fraction of image tokens the non-focal layers keep per step (top-tau by focal attention). 1 prunes nothing:
   * the focal layers still give every token its heatmap. Pruning costs the shipped model accuracy, so it is
   * the user's choice, not the default (docs/decisions/0012).
   */
  keepRatio: number;
}

export interface DecodeOptions {
  mode: DecodeMode;
  /** Draft block size, or 'auto' to pick it per round from measured forward costs and acceptance; mtp: drafts
   * per round (the same 'auto', up to the depth the head was trained for). */
  blockSize: number | 'auto';
  /** Pure diffusion: fill every masked slot whose probability exceeds this. */
  tauC: number;
  /** Extra denoising steps on a draft before it is verified (0 = one-shot draft). */
  refineSteps: number;
  /** 0 = greedy. */
  temperature: number;
  topP: number;
  seed: number;
  maxNewTokens: number;
  /**
   * Regions decoded together in one forward (AR and self-spec); 1 decodes them one by one. A page's text lines
   * share each forward's weight reads: 8 gave 1.55x the pages/s of 1 on the scribe scans (2 CPU cores).
   */
  batchSize: number;
  /** Stop a region whose output loops ("the the the ..."), taking back all but the loop's first copy. */
  repeatGuard: boolean;
  /**
   * Greedy decoding of a line model weighs its encoder's CTC reading in every token choice, as its checkpoint's
   * reading_prior says (docs/decisions/0022); false reads with the decoder alone.
   */
  readingPrior: boolean;
  fixation: FixationOptions;
}

export const DEFAULT_DECODE_OPTIONS: DecodeOptions = {
  mode: 'spec',
  blockSize: 'auto',
  tauC: 0.9,
  refineSteps: 0,
  temperature: 0,
  topP: 1,
  seed: 0,
  maxNewTokens: 1024,
  batchSize: 8,
  repeatGuard: true,
  readingPrior: true,
  fixation: { enabled: true, warmupSteps: 4, focalLayers: 2, keepRatio: 1 },
};

/** One region crop handed to the engine: 8-bit grayscale, row-major. */
export interface RegionInput {
  id: string;
  kind: RegionKind;
  width: number;
  height: number;
  pixels: Uint8Array;
}

/**
 * How a committed token came to be. 'encoder': a line the decoder cannot write (it holds a character outside
 * the decoder's vocabulary, such as Chinese or Japanese) is written from the line encoder's own CTC reading,
 * one character a token, with id -1 and that character's probability as its arProb.
 */
export type TokenSource = 'ar' | 'accepted' | 'corrected' | 'diffusion' | 'encoder';

export interface Fixation {
  /** Merged-grid image token indices (row-major over grid.rows x grid.cols), strongest first. */
  indices: number[];
  /** Attention weight of each index, summed over heads of the focal layers, normalised to sum 1. */
  weights: number[];
  /**
   * The crop the indices refer to, in page pixels, with its merged grid. Set by the page pipeline when one
   * layout region is read as several crops (a text block line by line); absent, the indices refer to the
   * region's own box and the grid of its region_start.
   */
  frame?: FixationFrame;
}

export interface FixationFrame {
  box: { x0: number; y0: number; x1: number; y1: number };
  rows: number;
  cols: number;
  /**
   * The direction the crop's text runs in on the page, radians (y down: pi/2 runs down a page turned a
   * quarter clockwise): the grid's columns run along it, its rows across. Absent: 0.
   */
  angle?: number;
}

export interface RegionStartEvent {
  type: 'region_start';
  regionId: string;
  kind: RegionKind;
  grid: { rows: number; cols: number };
  imageTokens: number;
}

export interface RoundEvent {
  type: 'round';
  regionId: string;
  round: number;
  /** Masks drafted this round (0: a plain AR step); mtp: the drafts the head made for the next round. */
  blockSize: number;
  /**
   * What drafted: diffusion (self-spec's masked block, whose d_1 stands in the verifier's slot) or the MTP
   * head (its drafts follow the verifier's token and all go to the next round; docs/decisions/0018).
   */
  drafter: 'diffusion' | 'mtp';
  /**
   * Drafted token ids and the draft's probability of each: first the guesses the previous block left, which
   * this round verified (draft.length - blockSize of them), then this round's block d_1..d_B
   * (docs/decisions/0016).
   */
  draft: number[];
  draftConf: number[];
  /** Verifier (AR) token ids, one per checked guess up to the first mismatch, then its own next token. */
  verify: number[];
  /** Number of guesses accepted (the verifier's own token is not counted). */
  accepted: number;
  /** Token ids committed this round. */
  committed: number[];
  forwards: number;
  /**
   * Time of the draft's extra work (self-spec: the refineSteps denoising forwards; mtp: the head's passes), and
   * of the round's verify (and, for self-spec, draft) forward.
   */
  draftMs: number;
  verifyMs: number;
}

export interface TokenEvent {
  type: 'token';
  regionId: string;
  /** Index of this token in the region's output. */
  index: number;
  id: number;
  text: string;
  round: number;
  source: TokenSource;
  /** Draft probability of this token (NaN-free: -1 where there was no draft). */
  draftConf: number;
  /** Verifier/AR probability of this token (with a reading prior, the joint choice's). */
  arProb: number;
  /**
   * The two readers' separate votes for this token where a reading prior chose it (a line read by the line
   * model): the decoder's own probability, and the line encoder's CTC probability of it after the tokens before
   * it. -1 where there was no such choice (a region read whole, a line the encoder wrote).
   */
  decoderProb: number;
  readProb: number;
  fixation: Fixation | null;
}

export interface RegionStats {
  tokens: number;
  forwards: number;
  rounds: number;
  encodeMs: number;
  prefillMs: number;
  /**
   * Wall time of every decoding step or round this region took part in, each counted whole however many
   * regions of a batch shared it (arEstimateMs is counted the same way).
   */
  decodeMs: number;
  /** This region's share of those steps (split evenly among the regions in each): summed over a batch, its decoding's wall time. */
  decodeShareMs: number;
  /** Decoder attention time while decoding (prefill excluded), fixation scoring included. */
  attentionMs: number;
  /** Mean share of image tokens attended by non-focal layers, fixation warm-up counted as 1 (1 without fixation). */
  visualTokenFraction: number;
  /** Tokens taken back by the repetition guard (already gone from the text). */
  retractedTokens: number;
  /**
   * Every token the engine committed: those the repetition guard took back, and on a page a line's readings
   * that another view replaced or that were dropped as unsure, included. Tokens per forward counts these.
   */
  committed: number;
  /**
   * What plain AR decoding would have taken for the same tokens, in ms, by the engine's own timing on this
   * machine: one forward per token priced by the forward costs its block sizing measures, calibrated on what
   * this decode's verifying rounds really took against those costs. Counted like decodeMs, so that their
   * ratio is the decode's speed against AR. Equal to decodeMs in AR mode, 0 in pure diffusion.
   */
  arEstimateMs: number;
}

export interface RegionEndEvent {
  type: 'region_end';
  regionId: string;
  text: string;
  stats: RegionStats;
  /** Text after the region's last token that no token carries: a table's closing tags. */
  tail?: string;
}

/** The repetition guard found a loop: the token at `index` and every later one of the region are taken back. */
export interface RetractEvent {
  type: 'retract';
  regionId: string;
  index: number;
}

export type EngineEvent = RegionStartEvent | RoundEvent | TokenEvent | RetractEvent | RegionEndEvent;

export interface EngineInfo {
  version: string;
  backends: string[];
  backend: string;
  cpuFeatures: Record<string, boolean>;
  /** The SIMD kernel set picked at run time (generic, avx2, avx2-vnni, avx512, avx512-vnni, avx512-bf16, avx512-amx). */
  cpuKernels: string;
  /** Every kernel set this CPU can run; SACCADE_CPU_KERNELS=<one of them> forces it. */
  cpuKernelSets: string[];
  threads: number;
}

export interface DecodeResult {
  regions: Array<{ regionId: string; text: string; tokens: number[]; stats: RegionStats }>;
  cancelled: boolean;
}
