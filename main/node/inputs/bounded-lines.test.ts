// Lines read with a bound: an over-long line is dropped as it streams past, held nowhere, and the lines after
// it are read as usual.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundedLines } from './bounded-lines';

async function collect(chunks: Iterable<Uint8Array | string>, maxBytes: number): Promise<Array<string | null>> {
  const lines: Array<string | null> = [];
  for await (const line of boundedLines((async function* () { yield* chunks; })(), maxBytes)) lines.push(line);
  return lines;
}

test('lines split across chunks, \\r\\n ends, a last line without its end, and a character split between chunks', async () => {
  const euro = Buffer.from('€');
  const chunks = ['{"a":', '1}\r\n\n', euro.subarray(0, 1), Buffer.concat([euro.subarray(1), Buffer.from('\nlast')])];
  assert.deepEqual(await collect(chunks, 64), ['{"a":1}', '', '€', 'last']);
});

test('a line of the bound is kept, one byte more is null in its place, and the next line is read', async () => {
  const at = 'x'.repeat(8);
  assert.deepEqual(await collect([`${at}\n${at}\r\n${at}y\nok\n`], 8), [at, at, null, 'ok']);
  assert.deepEqual(await collect(['x'.repeat(5), 'x'.repeat(5), 'x\r\nok'], 8), [null, 'ok']);
  assert.deepEqual(await collect(['x'.repeat(20)], 8), [null], 'an over-long last line without its end');
});

test('a 600 MB line streams past in bounded memory and the request after it is read', async () => {
  // One 8 MB chunk given 75 times: the only memory that can grow is what the reader holds.
  const chunk = Buffer.alloc(8 << 20, 0x61);
  const before = process.memoryUsage();
  let peak = 0;
  async function* stream() {
    for (let i = 0; i < 75; i++) {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
      yield chunk;
    }
    yield '\n{"id":1}\n';
  }
  const lines: Array<string | null> = [];
  for await (const line of boundedLines(stream(), 64 * 1024)) lines.push(line);
  assert.deepEqual(lines, [null, '{"id":1}']);
  assert.ok(peak < 16 << 20, `the reader held ${(peak / 2 ** 20).toFixed(0)} MB`);
});
