import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECK_BELOW } from '../../../common/confidence';
import { tokenClass, tokenHover } from './token-style';

const alone = { decoderProb: -1, readProb: -1 };

test('a token the model gave a low probability is marked to check, with its probability on hover', () => {
  assert.equal(tokenClass({ source: 'ar', arProb: 0.97, ...alone }), 'tok tok-ar');
  assert.equal(tokenClass({ source: 'accepted', arProb: CHECK_BELOW, ...alone }), 'tok tok-accepted');
  assert.equal(tokenClass({ source: 'corrected', arProb: 0.42, ...alone }), 'tok tok-corrected tok-check');
  assert.equal(tokenHover({ arProb: 0.97, ...alone }), null);
  assert.equal(tokenHover({ arProb: 0.423, ...alone }), 'Check this: the model gave it a probability of 0.42');
});

test('a token the decoder is sure of is still to check where the line encoder read something else', () => {
  // The joint choice kept it at 0.95, but the encoder's CTC head gave it 0.3: the readers disagree.
  const disputed = { source: 'ar' as const, arProb: 0.95, decoderProb: 0.99, readProb: 0.3 };
  assert.equal(tokenClass(disputed), 'tok tok-ar tok-check');
  assert.equal(tokenHover(disputed), 'Check this: the decoder gave it a probability of 0.99, the line\'s own reading 0.30');
  // Both sure: 0.97 x 0.96 = 0.93.
  assert.equal(tokenClass({ source: 'accepted', arProb: 0.99, decoderProb: 0.97, readProb: 0.96 }), 'tok tok-accepted');
});
