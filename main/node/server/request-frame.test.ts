import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkRequest, MAX_EXPORT_MESSAGE_BYTES, MAX_EXPORT_VALUES, MAX_UPLOAD_MESSAGE_BYTES, requestBudget } from '../../../common/protocol';
import { frameRefusal, frameShape } from './request-frame';

const frame = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

test('the scan reads the top-level name as JSON.parse does, and no nested or quoted one', () => {
  assert.equal(frameShape(frame({ kind: 'request', id: 1, name: 'hello', params: {} })).name, 'hello');
  assert.equal(frameShape(frame('{"n\\u0061me":"openDocument","id":1}')).name, 'openDocument');
  assert.equal(frameShape(frame('{"name":"hello","name":"exportSearchablePdf"}')).name, 'exportSearchablePdf', 'the last one, as JSON.parse keeps');
  assert.equal(frameShape(frame({ kind: 'request', params: { name: 'openDocument' } })).name, null);
  assert.equal(frameShape(frame({ kind: 'name', id: 'name' })).name, null, 'a value that reads "name" is no key');
  assert.equal(frameShape(frame({ text: 'say \\"name\\": "openDocument"' })).name, null, 'inside a string');
  assert.equal(frameShape(frame(['name', 'openDocument'])).name, null, 'an array has no keys');
});

test('the scan counts values as checkRequest\'s walk does, strings skipped whole', () => {
  const cases: Array<[unknown, number]> = [
    [{}, 1],
    [[], 1],
    [{ a: 1 }, 1],
    [{ a: [1, 2, 3], b: {}, c: '{[,,,]}' }, 3 + 3 + 1],
    [[[], [], [[]]], 3 + 1 + 1 + 1 + 1],
    [{ s: 'a "quoted", \\ [string] with {braces}, commas, and a trailing \\' }, 1],
  ];
  for (const [value, values] of cases) assert.equal(frameShape(frame(value)).values, values, JSON.stringify(value));
  // Members and the empty arrays themselves: 4 + 1 + 2 x 2,046. The walk refuses one past the same count.
  const params = { x: Array.from({ length: 2046 }, () => []) };
  const msg = { kind: 'request', id: 1, name: 'hello', params };
  const counted = frameShape(frame(msg)).values;
  assert.equal(counted, requestBudget('hello').values + 1);
  assert.match(frameRefusal(frame(msg))!, /^hello requests hold at most 4096 values, this one 4097$/);
  const walked = checkRequest(msg);
  assert.equal(walked.ok, false);
  if (!walked.ok) assert.equal(walked.reason, 'more than 4096 values');
  params.x.pop();
  assert.equal(frameRefusal(frame(msg)), null);
  assert.equal(checkRequest(msg).ok, true);
});

test('each request kind is held to its own size and count of values before it is parsed', () => {
  const wide = (name: string, n: number) => frame(`{"kind":"request","id":1,"name":"${name}","params":{"x":[${'[],'.repeat(n)}[]]}}`);
  assert.match(frameRefusal(wide('hello', 30_000))!, /^hello requests are at most 65536 bytes, this one is 900\d\d$/);
  assert.match(frameRefusal(wide('openDocument', 100))!, /^openDocument requests hold at most 64 values, this one 207$/);
  assert.match(frameRefusal(wide('format', 30_000))!, /^requests are at most 65536 bytes/, 'an unknown name gets the ordinary budget');
  assert.equal(frameRefusal(wide('exportSearchablePdf', 1_000_000)), null);
  assert.match(frameRefusal(wide('exportSearchablePdf', MAX_EXPORT_VALUES + 10))!, /^no request holds more than 4000000 values$/);
  assert.match(frameRefusal(frame(`{"kind":"request","id":1,"name":"hello","params":${'['.repeat(17)}${']'.repeat(17)}}`))!, /nested deeper than 16 levels/);
  const upload = frame({ kind: 'request', id: 1, name: 'openDocument', params: { name: 'scan.png', bytes: 'A'.repeat(2 ** 20) } });
  assert.equal(frameRefusal(upload), null);
  assert.equal(requestBudget('openDocument').bytes, MAX_UPLOAD_MESSAGE_BYTES);
});

test('a message larger than anything but an upload is read outside its strings only as far as an upload may be', () => {
  const blank = Buffer.alloc(MAX_EXPORT_MESSAGE_BYTES + 1, ' ');
  blank.write('{"kind":"request","id":1,"name":"exportSearchablePdf","params":{');
  blank.write('}}', blank.length - 2);
  assert.equal(frameRefusal(blank), `a message over ${MAX_EXPORT_MESSAGE_BYTES} bytes is an upload, with at most 65536 bytes outside its strings`);
  assert.equal(frameShape(blank, 65_536).bare, 65_537, 'the scan stops there');
  const upload = Buffer.alloc(MAX_EXPORT_MESSAGE_BYTES + 1, 'A');
  upload.write('{"kind":"request","id":1,"name":"openDocument","params":{"name":"scan.png","bytes":"');
  upload.write('"}}', upload.length - 3);
  assert.equal(frameRefusal(upload), null);
});
