// How a streamed token looks in the editor: tinted by how it was committed, and underlined when the model
// gave it a probability under CHECK_BELOW, since the words holding those are the words to check (F8 walks
// them).
import { CHECK_BELOW } from '../../../common/confidence';
import type { TokenEvent } from '../../../common/engine-types';

export function tokenClass(t: Pick<TokenEvent, 'source' | 'arProb'>): string {
  return `tok tok-${t.source}${t.arProb < CHECK_BELOW ? ' tok-check' : ''}`;
}

/** The hover text of a token to check; null for the others. */
export function tokenHover(t: Pick<TokenEvent, 'arProb'>): string | null {
  return t.arProb < CHECK_BELOW ? `Check this: the model gave it a probability of ${t.arProb.toFixed(2)}` : null;
}
