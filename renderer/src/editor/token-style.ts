// How a streamed token looks in the editor: tinted by how it was committed, and underlined when its confidence
// is under CHECK_BELOW, since the words holding those are the words to check (F8 walks them).
import { CHECK_BELOW, hasVotes, tokenConfidence } from '../../../common/confidence';
import type { TokenEvent } from '../../../common/engine-types';

type Votes = Pick<TokenEvent, 'arProb' | 'decoderProb' | 'readProb'>;

export function tokenClass(t: Votes & Pick<TokenEvent, 'source'>): string {
  return `tok tok-${t.source}${tokenConfidence(t) < CHECK_BELOW ? ' tok-check' : ''}`;
}

/** The hover text of a token to check, with each reader's vote where both read it; null for the others. */
export function tokenHover(t: Votes): string | null {
  if (tokenConfidence(t) >= CHECK_BELOW) return null;
  if (hasVotes(t))
    return `Check this: the decoder gave it a probability of ${t.decoderProb.toFixed(2)}, the line's own reading ${t.readProb.toFixed(2)}`;
  return `Check this: the model gave it a probability of ${t.arProb.toFixed(2)}`;
}
