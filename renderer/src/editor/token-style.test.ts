import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECK_BELOW } from '../../../common/confidence';
import { tokenClass, tokenHover } from './token-style';

test('a token the model gave a low probability is marked to check, with its probability on hover', () => {
  assert.equal(tokenClass({ source: 'ar', arProb: 0.97 }), 'tok tok-ar');
  assert.equal(tokenClass({ source: 'accepted', arProb: CHECK_BELOW }), 'tok tok-accepted');
  assert.equal(tokenClass({ source: 'corrected', arProb: 0.42 }), 'tok tok-corrected tok-check');
  assert.equal(tokenHover({ arProb: 0.97 }), null);
  assert.equal(tokenHover({ arProb: 0.423 }), 'Check this: the model gave it a probability of 0.42');
});
