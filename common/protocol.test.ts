import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_DECODE_OPTIONS } from './engine-types';
import { checkRequest, MAX_NAME_CHARS } from './protocol';

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
    [{ kind: 'request', id: 1, name: 'decode', params: { docId: 'x', pages: [0, 1, 0], options: DEFAULT_DECODE_OPTIONS } }, /distinct/],
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

test('a searchable PDF export carries a bounded text and only the decode events that place words', () => {
  const token = { type: 'token', regionId: 'p0-r0', index: 0, id: 5, text: 'Hi', round: 0, source: 'ar', draftConf: -1, arProb: 0.9, decoderProb: 0.95, readProb: 0.8, fixation: null };
  const ask = (params: unknown) => checkRequest({ kind: 'request', id: 1, name: 'exportSearchablePdf', params });
  assert.equal(ask({ docId: 'd1', text: '# Hi', events: [token] }).ok, true);
  const refused: Array<[unknown, RegExp]> = [
    [{ docId: 'd1', text: 7, events: [] }, /text/],
    [{ docId: 'd1', text: '', events: {} }, /events/],
    [{ docId: 'd1', text: '', events: [{ ...token, text: 3 }] }, /token needs/],
    [{ docId: 'd1', text: '', events: [{ ...token, readProb: 'sure' }] }, /token needs/],
    [{ docId: 'd1', text: '', events: [{ type: 'progress', docId: 'd1', regionsDone: 0, regionsTotal: 1 }] }, /not for an export/],
    [{ text: '', events: [] }, /docId/],
  ];
  for (const [params, reason] of refused) {
    const r = ask(params);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.reason, reason);
  }
});

test('names and document ids longer than a name are refused', () => {
  const long = 'x'.repeat(MAX_NAME_CHARS + 1);
  const refused: Array<[string, unknown, RegExp]> = [
    ['openDocument', { name: long, bytes: '' }, /openDocument needs a name of at most 1024 characters/],
    ['openSample', { name: long }, /openSample.name/],
    ['closeDocument', { docId: long }, /closeDocument.docId/],
    ['decode', { docId: long, pages: null, options: DEFAULT_DECODE_OPTIONS }, /decode.docId/],
    ['exportSearchablePdf', { docId: long, text: '', events: [] }, /exportSearchablePdf.docId/],
  ];
  for (const [name, params, reason] of refused) {
    const r = checkRequest({ kind: 'request', id: 1, name, params });
    assert.equal(r.ok, false, name);
    if (!r.ok) assert.match(r.reason, reason);
    const fits = checkRequest({ kind: 'request', id: 1, name, params: JSON.parse(JSON.stringify(params).replace(long, long.slice(1))) as unknown });
    assert.equal(fits.ok, true, `${name} with a name of ${MAX_NAME_CHARS} characters`);
  }
});
