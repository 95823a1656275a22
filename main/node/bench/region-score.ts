// One accuracy number per region, in [0, 1], by the metric of its type: 1 - CER for text, TEDS for
// tables, exact match after normalisation for formulas.
import type { RegionKind } from '../../../common/engine-types';
import { latexExactMatch } from '../eval/latex-match';
import { teds } from '../eval/teds';
import { editDistance } from '../eval/text-metrics';

export function characterErrorRate(predicted: string, truth: string): number {
  if (truth.length === 0) return predicted.length === 0 ? 0 : 1;
  return editDistance([...predicted], [...truth]) / [...truth].length;
}

export function regionScore(kind: RegionKind, predicted: string, truth: string): number {
  switch (kind) {
    case 'text': return Math.max(0, 1 - characterErrorRate(predicted, truth));
    case 'table': return teds(predicted, truth);
    case 'formula': return latexExactMatch(predicted, truth) ? 1 : 0;
  }
}
