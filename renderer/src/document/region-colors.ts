// One colour per layout region kind, shared by the page boxes, the progress segments and the timeline.
import type { TokenSource } from '../../../common/engine-types';
import type { LayoutRegion } from '../../../common/protocol';

export const REGION_COLORS: Record<LayoutRegion['kind'], string> = {
  title: '#c084fc',
  text: '#60a5fa',
  list: '#38bdf8',
  table: '#34d399',
  formula: '#fbbf24',
  header: '#94a3b8',
  footer: '#94a3b8',
  figure: '#f472b6',
};

/** Token tints by how the token was committed (the editor uses the same colours in CSS). */
export const SOURCE_COLORS = {
  ar: '#a78bfa',
  accepted: '#34d399',
  corrected: '#f87171',
  diffusion: '#fbbf24',
  encoder: '#22d3ee',
} as const satisfies Record<TokenSource, string>;
