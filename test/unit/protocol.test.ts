import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkRequest, checkServerMessage, checkSessionEvent } from '../../common/protocol';
import { buildSyntheticDecode } from '../support/synthetic-decode';

test('checkRequest accepts well-formed requests and names what is wrong with the others', () => {
  assert.equal(checkRequest({ kind: 'request', id: 1, name: 'closeDocument', params: { docId: 'a' } }).ok, true);
  const bad = [
    [{ kind: 'request', id: 1, name: 'closeDocument', params: {} }, /closeDocument.docId/],
    [{ kind: 'request', id: 1.5, name: 'hello', params: {} }, /id must be an integer/],
    [{ kind: 'request', id: 1, name: 'format', params: {} }, /unknown request "format"/],
    [{ kind: 'request', id: 1, name: 'decode', params: { docId: 'a', pages: null, options: { mode: 'fast' } } }, /mode/],
  ] as const;
  for (const [msg, reason] of bad) {
    const r = checkRequest(msg);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.reason, reason);
  }
});

test('every event of a protocol-following decode passes checkSessionEvent', () => {
  for (const e of buildSyntheticDecode().batches.flat()) assert.equal(checkSessionEvent(e), null, JSON.stringify(e).slice(0, 120));
});

test('checkSessionEvent rejects malformed events', () => {
  assert.match(checkSessionEvent({ type: 'teleport' })!, /unknown event/);
  const token = { type: 'token', regionId: 'r', index: 0, id: 5, text: 'a', round: 0, source: 'ar', arProb: 0.9, decoderProb: 0.95, readProb: 0.8 };
  assert.match(checkSessionEvent({ ...token, fixation: { indices: [1, 2], weights: [1] } })!, /fixation/);
  assert.match(checkSessionEvent({ ...token, readProb: undefined, fixation: null })!, /readProb/);
  assert.match(checkSessionEvent({ type: 'round', regionId: 'r', round: 0, blockSize: 8, forwards: 2, draft: [], verify: [] })!, /committed/);
  assert.match(checkSessionEvent({ type: 'page_layout', docId: 'd', page: 0, regions: [{ id: 'x' }] })!, /box/);
  const end = { type: 'region_end', regionId: 'r', text: '<table></table>', stats: {} };
  assert.equal(checkSessionEvent({ ...end, tail: '</td></tr></table>' }), null);
  assert.match(checkSessionEvent({ ...end, tail: 3 })!, /tail must be a string/);
  const unsure = { type: 'unsure_line', docId: 'd', regionId: 'r', box: { x0: 0, y0: 0, x1: 9, y1: 9 }, text: 'x', meanProb: 0.5 };
  assert.equal(checkSessionEvent(unsure), null);
  assert.match(checkSessionEvent({ ...unsure, meanProb: undefined })!, /unsure_line needs/);
  assert.match(checkSessionEvent({ ...unsure, box: null })!, /unsure_line needs/);
});

test('checkServerMessage drops malformed events but keeps the good ones of a batch', () => {
  const good = { type: 'progress', docId: 'd', regionsDone: 1, regionsTotal: 2, elapsedMs: 5, remainingMs: 5 };
  const r = checkServerMessage({ kind: 'events', docId: 'd', events: [good, { type: 'progress' }] });
  assert.equal(r.ok, true);
  if (r.ok) {
    assert.deepEqual(r.value, { kind: 'events', docId: 'd', events: [good] });
    assert.equal(r.dropped.length, 1);
  }
  const crash = { kind: 'events', docId: null, events: [{ type: 'engine_crashed', reason: 'gone' }] };
  assert.equal(checkServerMessage(crash).ok, true, 'what concerns the whole engine names no document');
  const unnamed = checkServerMessage({ kind: 'events', events: [good] });
  assert.equal(unnamed.ok, false);
  if (!unnamed.ok) assert.match(unnamed.reason, /docId/);
  assert.equal(checkServerMessage({ kind: 'response', id: 3, ok: false }).ok, false);
  assert.equal(checkServerMessage({ kind: 'response', id: 3, ok: true, result: {} }).ok, true);
  assert.equal(checkServerMessage('hello').ok, false);
});
