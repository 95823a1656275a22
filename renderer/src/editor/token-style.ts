// How a streamed token looks in the editor: tinted by how it was committed, and underlined when the model
// gave it a low probability, since those are the words to check. On the scribe pages, words the shipped
// model wrote with a mean probability under 0.7 were right 18% of the time, against 80% at 0.9 and above
// (docs/decisions/0017); the first and only signal on a CPU, where nearly every token is a plain AR step.
import type { TokenEvent } from '../../../common/engine-types';

export const CHECK_BELOW = 0.7;

export function tokenClass(t: Pick<TokenEvent, 'source' | 'arProb'>): string {
  return `tok tok-${t.source}${t.arProb < CHECK_BELOW ? ' tok-check' : ''}`;
}

/** The hover text of a token to check; null for the others. */
export function tokenHover(t: Pick<TokenEvent, 'arProb'>): string | null {
  return t.arProb < CHECK_BELOW ? `Check this: the model gave it a probability of ${t.arProb.toFixed(2)}` : null;
}
