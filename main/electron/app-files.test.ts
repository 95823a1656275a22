import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { appFile } from './app-files';

const ROOT = join('/opt', 'saccade', 'out', 'renderer');

test('app:// paths map to files inside the renderer folder', () => {
  assert.deepEqual(appFile(ROOT, 'app://saccade/index.html'), { path: join(ROOT, 'index.html') });
  assert.deepEqual(appFile(ROOT, 'app://saccade/assets/index-abc.js?v=1#x'), { path: join(ROOT, 'assets', 'index-abc.js') });
  assert.deepEqual(appFile(ROOT, 'app://saccade/fonts/My%20Font.woff2'), { path: join(ROOT, 'fonts', 'My Font.woff2') });
});

test('a malformed escape is a bad request, not an exception in the protocol handler', () => {
  for (const url of ['app://saccade/%', 'app://saccade/x%zz', 'app://saccade/%E0%A4%A', 'app://saccade/a%00.html', 'not a url']) {
    assert.deepEqual(appFile(ROOT, url), { status: 400 }, url);
  }
});

test('no request leaves the renderer folder or lists it: dot segments, encoded separators, absolute paths, other hosts', () => {
  const outside = [
    'app://saccade/..%2f..%2f..%2fetc%2fpasswd',
    'app://saccade/%2e%2e%2f%2e%2e%2fetc/passwd',
    'app://saccade/assets/..%2f..%2fmain%2felectron-main.js',
    'app://saccade/',
    'app://saccade/assets/',
    'app://other/index.html',
    'file:///etc/passwd',
    'https://saccade/index.html',
  ];
  for (const url of outside) assert.deepEqual(appFile(ROOT, url), { status: 403 }, url);
  // What the URL parser folds, or an absolute path, stays inside the folder (and is simply not found there).
  const folded = ['app://saccade/../../etc/passwd', 'app://saccade/%2e%2e/%2e%2e/etc/passwd', 'app://saccade//etc/passwd', 'app://saccade/.%2E/x/../../etc/passwd'];
  for (const url of folded) assert.deepEqual(appFile(ROOT, url), { path: join(ROOT, 'etc', 'passwd') }, url);
});
