import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appInBrowserForFile, ARTIFACTS } from '../support/app-in-browser';

const served = appInBrowserForFile();

test('npm start serves the React shell and it reaches the engine', async () => {
  const { app, browser } = served();
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(app.url);
  await page.getByTestId('app-shell').waitFor();
  assert.equal(await page.title(), 'Saccade');
  await page.getByTestId('engine-status').filter({ hasText: /engine ·/ }).waitFor({ timeout: 30_000 });
  await page.screenshot({ path: `${ARTIFACTS}/app-shell.png` });
  assert.deepEqual(errors, []);
});
