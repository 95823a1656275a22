// What a worker takes from Redis is checked before any work: job fields, decode flags, paths that would leave
// the root (by '..', by being absolute, or through a link), and the Redis URL's password rule.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkJob, decodeSettings, insideRoot, MAX_JOB_BYTES, MAX_STORED_JOB_BYTES, oversizedJob, type PageJob } from './batch-job';
import { redisUrl } from './redis-url';

const GOOD: PageJob = {
  v: 2, batch: '0123456789abcdef', doc: 'scans/a.pdf', hash: 'a'.repeat(64), pages: [0, 7], pageCount: 12, place: [3, 40],
  out: 'out/a', flags: ['--mode', 'ar', '--views', '1'], outputs: { json: false, hocr: true },
};

test('a job is taken only whole and well formed', () => {
  assert.deepEqual(checkJob(structuredClone(GOOD)), GOOD);
  const bad: Array<[Partial<Record<keyof PageJob | 'extra', unknown>>, RegExp]> = [
    [{ doc: '../etc/passwd' }, /job doc "..\/etc\/passwd" leaves the root/],
    [{ doc: '/etc/passwd' }, /job doc "\/etc\/passwd" leaves the root/],
    [{ out: 'out/../../x' }, /job out .* leaves the root/],
    [{ doc: 'a\0b' }, /job doc must be a path/],
    [{ pages: [8, 12] }, /job pages must be \[first, last\] within the document/],
    [{ pages: [3, 2] }, /job pages must be/],
    [{ pageCount: 1e9 }, /job pageCount must be 1 to/],
    [{ place: [-1, 0] }, /job place must be \[document, first page\] within 4294967296/],
    [{ place: [0, 2 ** 32 - 5] }, /job place must be/],
    [{ place: ['1', 0] }, /job place must be/],
    [{ hash: 'abc' }, /job hash must be a SHA-256/],
    [{ batch: 'x' }, /job batch must be a batch id/],
    [{ flags: ['--json'] }, /--json is not a decode option/],
    [{ flags: ['--mode', 'fast'] }, /--mode must be one of/],
    [{ flags: ['--keep-ratio', '7'] }, /--keep-ratio/],
    [{ outputs: { json: true, hocr: true, pdf: true } }, /job outputs must be \{json, hocr\}/],
    [{ extra: 1 }, /unknown job field extra/],
    [{ doc: 'a'.repeat(20_000) }, /job doc must be a path of at most 4096 characters/],
  ];
  for (const [change, reason] of bad) assert.throws(() => checkJob({ ...structuredClone(GOOD), ...change }), reason, JSON.stringify(change).slice(0, 80));
  assert.throws(() => checkJob(null), /a job is an object/);
});

test('a stored job is measured before it is parsed: its payload and all its fields', () => {
  const stored = { id: '7', name: 'pages', data: JSON.stringify(GOOD), opts: '{"attempts":3}', timestamp: '1', stacktrace: '[]' };
  assert.equal(oversizedJob(stored), null);
  assert.equal(oversizedJob({ ...stored, data: 'x'.repeat(MAX_JOB_BYTES + 1) }), `its payload is ${MAX_JOB_BYTES + 1} characters, over ${MAX_JOB_BYTES}`);
  assert.match(oversizedJob({ ...stored, stacktrace: 'x'.repeat(MAX_STORED_JOB_BYTES) })!, /^it is stored in \d+ characters, over 65536$/);
  // The size is read from the string, not from what it would parse into.
  assert.equal(oversizedJob({ ...stored, data: '[' + '{},'.repeat(6000) + '{}]' }), `its payload is ${3 * 6000 + 4} characters, over ${MAX_JOB_BYTES}`);
});

test('decode settings: the same options in another order are the same batch; other options another', () => {
  assert.equal(decodeSettings(['--mode', 'ar', '--views', '1']).key, decodeSettings(['--views', '1', '--mode', 'ar']).key);
  assert.notEqual(decodeSettings(['--mode', 'ar']).key, decodeSettings(['--mode', 'spec']).key);
  assert.notEqual(decodeSettings([]).key, decodeSettings(['--model', '/models/other']).key);
  assert.equal(decodeSettings(['--model', '/models/other']).model, '/models/other');
  assert.equal(decodeSettings([]).model, null);
});

test('paths stay inside the root, links out of it included', () => {
  const root = mkdtempSync(join(tmpdir(), 'saccade-root-'));
  const outside = mkdtempSync(join(tmpdir(), 'saccade-outside-'));
  mkdirSync(join(root, 'scans'));
  writeFileSync(join(root, 'scans', 'a.pdf'), '');
  symlinkSync(outside, join(root, 'scans', 'elsewhere'));
  symlinkSync(join(root, 'scans', 'a.pdf'), join(root, 'scans', 'alias.pdf'));
  assert.equal(insideRoot(root, 'scans/a.pdf'), join(root, 'scans', 'a.pdf'));
  assert.equal(insideRoot(root, 'out/new/a'), join(root, 'out', 'new', 'a'));
  assert.equal(insideRoot(root, 'scans/alias.pdf'), join(root, 'scans', 'a.pdf'));
  assert.throws(() => insideRoot(root, 'scans/elsewhere/x.pdf'), /scans\/elsewhere\/x\.pdf leads out of the root/);
  assert.throws(() => insideRoot(root, 'scans/elsewhere'), /leads out of the root/);
  assert.throws(() => insideRoot(root, '../x'), /leaves the root/);
});

test('Redis off this machine needs a password', () => {
  assert.equal(redisUrl(undefined, {}), 'redis://127.0.0.1:6379');
  assert.equal(redisUrl(undefined, { SACCADE_REDIS_URL: 'redis://localhost:7000' }), 'redis://localhost:7000');
  assert.equal(redisUrl('redis://[::1]:6379', {}), 'redis://[::1]:6379');
  assert.equal(redisUrl('rediss://worker:s3cret@queue.example.org:6380', {}), 'rediss://worker:s3cret@queue.example.org:6380');
  assert.equal(redisUrl('redis://:s3cret@10.0.0.5', {}), 'redis://:s3cret@10.0.0.5');
  assert.throws(() => redisUrl('redis://10.0.0.5:6379', {}), /Redis at 10\.0\.0\.5 has no password: a queue off this machine needs one/);
  assert.throws(() => redisUrl('redis://worker@queue.example.org', {}), /has no password/);
  assert.throws(() => redisUrl('http://127.0.0.1', {}), /a Redis URL starts with redis:\/\/ or rediss:\/\/, not http:\/\//);
  assert.throws(() => redisUrl('not a url', {}), /not a Redis URL/);
});
