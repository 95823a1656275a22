import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IpcMainEvent } from 'electron';
import { checkRendererMessage, MAX_MARKDOWN_CHARS } from './ipc-channels';

const from = (url: string) => ({ senderFrame: { url } }) as unknown as IpcMainEvent;
const page = from('app://saccade/index.html');

test('renderer messages are taken only from the app page, with every field within its bound', () => {
  assert.equal(checkRendererMessage('save-markdown', page, { suggestedName: 'scan.md', text: '# Scan' }), null);
  assert.match(checkRendererMessage('save-markdown', from('https://evil.example/'), { suggestedName: 'a.md', text: '' })!, /untrusted frame/);
  const refused: Array<[Parameters<typeof checkRendererMessage>[0], unknown]> = [
    ['save-markdown', { suggestedName: 'x'.repeat(256), text: '' }],
    ['save-markdown', { suggestedName: 'a.md', text: 'x'.repeat(MAX_MARKDOWN_CHARS + 1) }],
    ['save-markdown', { suggestedName: 'a.md', text: 7 }],
    ['document-changed', { name: 'x'.repeat(256) }],
    ['document-changed', ['scan.pdf']],
    ['engine-summary', { summary: 'x'.repeat(1000) }],
    ['show-open-dialog', {}],
    ['choose-model-folder', { path: '/etc' }],
  ];
  for (const [channel, payload] of refused) assert.equal(checkRendererMessage(channel, page, payload), `malformed payload on ${channel}`, channel);
  assert.equal(checkRendererMessage('document-changed', page, { name: null }), null);
  assert.equal(checkRendererMessage('choose-model-folder', page, null), null);
  assert.equal(checkRendererMessage('save-pdf', page, { suggestedName: 'scan.pdf', bytes: new Uint8Array(8) }), null);
  for (const payload of [{ suggestedName: 'scan.pdf', bytes: 'JVBERi0=' }, { suggestedName: 'x'.repeat(256), bytes: new Uint8Array(1) }, { bytes: new Uint8Array(1) }]) {
    assert.equal(checkRendererMessage('save-pdf', page, payload), 'malformed payload on save-pdf');
  }
});
