import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fraction, wholeNumber } from './number-options';

test('a count is decimal digits within its range; everything Number() would bend is refused', () => {
  assert.equal(wholeNumber('--threads', '4', 1, 4), 4);
  assert.equal(wholeNumber('--threads', '01', 1, 4), 1);
  for (const bad of ['', ' ', ' 2', '2 ', '0x2', '2e0', '+2', '-1', '1.5', '2.0', 'NaN', 'Infinity', 'two', '0', '5', '100000', '4294967297']) {
    assert.throws(() => wholeNumber('--threads', bad, 1, 4), new RegExp(`^Error: --threads must be a whole number from 1 to 4, not ${bad === '' ? "''" : bad.replace(/[.+]/g, '\\$&')}$`), JSON.stringify(bad));
  }
});

test('a fraction is a plain decimal in (0, 1]', () => {
  assert.deepEqual(['1', '0.25', '.5', '1.0', '0.08'].map((t) => fraction('--keep-ratio', t)), [1, 0.25, 0.5, 1, 0.08]);
  for (const bad of ['0', '0.0', '1.01', '-0.5', '', '1e-1', '0x1', ' .5', 'NaN', '.']) {
    assert.throws(() => fraction('--keep-ratio', bad), /^Error: --keep-ratio must be in \(0, 1\], not /, JSON.stringify(bad));
  }
});
