// The user's decoding settings, remembered between runs. Whatever is stored is validated field by field, so
// an old or hand-edited value degrades to the default rather than reaching the engine.
import { DECODE_MODES, DEFAULT_DECODE_OPTIONS, type DecodeMode, type DecodeOptions } from '../../../common/engine-types';
import { readJson, writeJson, type KeyValueStore } from './persisted';

export const SETTINGS_KEY = 'saccade.decodeSettings';
export const BLOCK_SIZES = [4, 8, 16, 32] as const;

export const MODE_NAMES: Record<DecodeMode, string> = {
  ar: 'autoregressive',
  spec: 'self-speculative',
  mtp: 'MTP speculative',
  diffusion: 'diffusion',
};

export interface DecodeSettings {
  mode: DecodeMode;
  blockSize: number | 'auto';
  tauC: number;
  fixation: boolean;
  keepRatio: number;
}

export const DEFAULT_SETTINGS: DecodeSettings = {
  mode: DEFAULT_DECODE_OPTIONS.mode,
  blockSize: DEFAULT_DECODE_OPTIONS.blockSize,
  tauC: DEFAULT_DECODE_OPTIONS.tauC,
  fixation: DEFAULT_DECODE_OPTIONS.fixation.enabled,
  keepRatio: DEFAULT_DECODE_OPTIONS.fixation.keepRatio,
};

const inRange = (v: unknown, lo: number, hi: number): v is number => typeof v === 'number' && v >= lo && v <= hi;

export function sanitizeSettings(raw: unknown): DecodeSettings {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const d = DEFAULT_SETTINGS;
  return {
    mode: (DECODE_MODES as readonly unknown[]).includes(r.mode) ? (r.mode as DecodeMode) : d.mode,
    blockSize: r.blockSize === 'auto' || (BLOCK_SIZES as readonly unknown[]).includes(r.blockSize) ? (r.blockSize as number | 'auto') : d.blockSize,
    tauC: inRange(r.tauC, 0.5, 0.999) ? r.tauC : d.tauC,
    fixation: typeof r.fixation === 'boolean' ? r.fixation : d.fixation,
    keepRatio: inRange(r.keepRatio, 0.01, 1) ? r.keepRatio : d.keepRatio,
  };
}

export function loadSettings(storage: KeyValueStore | null): DecodeSettings {
  return sanitizeSettings(readJson(storage, SETTINGS_KEY, null));
}

export function saveSettings(storage: KeyValueStore | null, settings: DecodeSettings): void {
  writeJson(storage, SETTINGS_KEY, settings);
}

export function toDecodeOptions(s: DecodeSettings): DecodeOptions {
  return {
    ...DEFAULT_DECODE_OPTIONS,
    mode: s.mode,
    blockSize: s.blockSize,
    tauC: s.tauC,
    fixation: { ...DEFAULT_DECODE_OPTIONS.fixation, enabled: s.fixation, keepRatio: s.keepRatio },
  };
}
