// Which tokens and words the user should check (docs/decisions/0027, 0051).
import type { TokenEvent } from './engine-types';

/**
 * A token is as sure as the chance that both of the model's readers read it so: where the line encoder's CTC
 * head read the line beside the decoder, the product of their two probabilities for it; elsewhere the verifier's
 * probability. The joint choice's own probability (arProb) cannot say this: it mixes the two votes, so a token
 * the decoder is sure of stays sure where the encoder's reading says otherwise.
 */
export function tokenConfidence(t: Pick<TokenEvent, 'arProb' | 'decoderProb' | 'readProb'>): number {
  return hasVotes(t) ? t.decoderProb * t.readProb : t.arProb;
}

/** Whether both readers voted on the token (a reading prior chose it). */
export function hasVotes(t: Pick<TokenEvent, 'decoderProb' | 'readProb'>): boolean {
  return t.decoderProb >= 0 && t.readProb >= 0;
}

// A token whose confidence is under this is one for the user to check, and so is every word holding one (a
// word is as sure as its least sure token): the rest are sure. One bar for both, so that every word is either
// sure or to check. On the development scans, words under it held 54% of the words read wrong on scribe pages
// and 47-64% on the receipts, forms and typescripts, while 4-15% of the words were flagged; scribe's sure words
// were right 98.4% of the time (`npm run eval`: <source>.wrong_words_flagged, right_when_sure).
export const CHECK_BELOW = 0.9;
