import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_DECODE_OPTIONS } from './engine-types';
import { checkRequest } from './protocol';

test('a well-formed decode request passes validation', () => {
  const r = checkRequest({ kind: 'request', id: 3, name: 'decode', params: { docId: 'd1', pages: [0, 2], options: DEFAULT_DECODE_OPTIONS } });
  assert.equal(r.ok, true);
});

test('malformed requests are rejected with the reason', () => {
  const cases: Array<[unknown, RegExp]> = [
    [null, /not an object/],
    [{ kind: 'request', id: 1, name: 'rm -rf', params: {} }, /unknown request/],
    [{ kind: 'request', id: 1.5, name: 'hello', params: {} }, /integer/],
    [{ kind: 'request', id: 1, name: 'decode', params: { docId: 'x', pages: ['a'], options: DEFAULT_DECODE_OPTIONS } }, /pages/],
    [{ kind: 'request', id: 1, name: 'decode', params: { docId: 'x', pages: null, options: { mode: 'fast' } } }, /mode/],
    [{ kind: 'request', id: 1, name: 'openDocument', params: { name: 'a.pdf' } }, /base64/],
    [{ kind: 'request', id: 1, name: 'switchModel', params: {} }, /switchModel.dir/],
    [{ kind: 'request', id: 1, name: 'switchModel', params: { dir: '' } }, /switchModel.dir/],
    [{ kind: 'request', id: 1, name: 'switchModel', params: { dir: '/a\0b' } }, /switchModel.dir/],
    [{ kind: 'request', id: 1, name: 'switchModel', params: { dir: '/'.repeat(5000) } }, /switchModel.dir/],
  ];
  for (const [msg, reason] of cases) {
    const r = checkRequest(msg);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.reason, reason);
  }
});

test('a switch to the embedded model or to a folder path passes validation', () => {
  assert.equal(checkRequest({ kind: 'request', id: 1, name: 'switchModel', params: { dir: null } }).ok, true);
  assert.equal(checkRequest({ kind: 'request', id: 2, name: 'switchModel', params: { dir: '/models/glm-ocr' } }).ok, true);
});
