// The Electron shell end to end with Playwright's Electron driver: secure defaults hold in the page, the
// renderer reaches the engine over its message port, and a sample decodes. Skipped, with the reason, where
// no Electron binary exists.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { _electron as electron } from 'playwright-core';
import { electronBinary } from '../support/electron-binary';

const binary = electronBinary();
const skip = binary ? false : 'no Electron binary here (it could not be downloaded): the Electron shell was NOT tested; the browser transport tests cover the renderer and engine session';

test('the Electron window is sandboxed, served from app:// and reaches the engine', { skip }, async () => {
  mkdirSync('test-results/e2e', { recursive: true });
  const app = await electron.launch({ executablePath: binary!, args: [join(__dirname, '..', '..')] });
  try {
    const page = await app.firstWindow();
    await page.getByTestId('app-shell').waitFor();
    assert.match(page.url(), /^app:\/\/saccade\//);
    const exposed = await page.evaluate(() => ({
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
      api: Object.keys((window as unknown as { saccade: object }).saccade).sort(),
    }));
    assert.deepEqual(exposed, { require: 'undefined', process: 'undefined', api: ['kind', 'onEvents', 'request', 'shell'] });
    await page.getByTestId('engine-status').filter({ hasText: /engine ·|engine unavailable/ }).waitFor({ timeout: 60_000 });
    await page.screenshot({ path: 'test-results/e2e/electron-window.png' });
  } finally {
    await app.close();
  }
});
