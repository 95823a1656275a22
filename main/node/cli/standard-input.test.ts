import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { readStandardInput } from './standard-input';

const stdin = (chunks: Buffer[], isTTY = false) => Object.assign(Readable.from(chunks), { isTTY }) as unknown as NodeJS.ReadStream;

test('standard input gives one document, and stops reading past the largest a file may be', async () => {
  assert.deepEqual(Buffer.from(await readStandardInput(stdin([Buffer.from('%PDF-'), Buffer.from('1.7')]), 16)), Buffer.from('%PDF-1.7'));
  // An endless pipe: reading stops at the limit, whatever follows.
  let pulled = 0;
  const endless = Object.assign(new Readable({ read() { pulled++; this.push(Buffer.alloc(1024)); } }), { isTTY: false }) as unknown as NodeJS.ReadStream;
  await assert.rejects(readStandardInput(endless, 2 ** 20), /^Error: it gives more than 1 MB, the largest document Saccade opens$/);
  // The limit, and no more than the stream's own 16 KiB read ahead.
  assert.ok(pulled <= 1024 + 17, `read ${pulled} chunks of 1 KiB past a 1 MiB limit`);
  assert.ok(endless.destroyed);
  await assert.rejects(readStandardInput(stdin([], true)), /it is a terminal; pipe a document in/);
});
