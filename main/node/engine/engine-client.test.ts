// The server's side of the engine process, against the real engine host (run from its TypeScript source by the
// test's own loader): every connection is a session of its own on the one IPC channel.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DocumentInfo, EventMessage, RequestMap, RequestName, ResponseMessage } from '../../../common/protocol';
import { EngineClient, type EngineConnection } from './engine-client';
import { resourceRoot } from './native-addon';

const noSamples = !existsSync(join(resourceRoot(), 'assets', 'samples', 'samples.json')) && 'the sample pages are missing';

function connection(client: EngineClient) {
  const events: EventMessage[] = [];
  const conn: EngineConnection = client.connect((m) => void events.push(m));
  const ask = <N extends RequestName>(id: number, name: N, params: RequestMap[N][0]): Promise<ResponseMessage> =>
    conn.request({ kind: 'request', id, name, params });
  return { conn, events, ask };
}

test('connections that use the same request ids each get their own answers, and only their own documents', { skip: noSamples }, async (t) => {
  const client = new EngineClient(join(__dirname, '..', 'engine-host.ts'));
  t.after(() => client.close());
  const user = connection(client);
  const other = connection(client);
  // Fresh pages both count from 1, at the same time.
  const [a, b] = await Promise.all([user.ask(1, 'listSamples', {}), other.ask(1, 'listSamples', {})]);
  assert.deepEqual([a.id, a.ok, b.id, b.ok], [1, true, 1, true]);

  const opened = await user.ask(2, 'openSample', { name: 'scanned-page.png' });
  assert.equal(opened.ok, true, opened.error);
  const { docId } = (opened.result as { doc: DocumentInfo }).doc;
  assert.deepEqual((await other.ask(2, 'closeDocument', { docId })).result, { closed: false });
  assert.deepEqual((await user.ask(3, 'closeDocument', { docId })).result, { closed: true });
  assert.deepEqual([...user.events, ...other.events], []);
});

test('a closed connection\'s requests are answered as failed, and the engine serves the others on', { skip: noSamples }, async (t) => {
  const client = new EngineClient(join(__dirname, '..', 'engine-host.ts'));
  t.after(() => client.close());
  const user = connection(client);
  assert.equal((await user.ask(1, 'openSample', { name: 'scanned-page.png' })).ok, true);
  const pending = user.ask(2, 'listSamples', {});
  user.conn.close();
  assert.deepEqual(await pending, { kind: 'response', id: 2, ok: false, error: 'the connection closed' });
  const other = connection(client);
  assert.equal((await other.ask(1, 'listSamples', {})).ok, true);
});
