import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { RunningApp } from '../support/app-server';
import { ARTIFACTS, openAppInBrowser, type AppInBrowser } from '../support/app-in-browser';

let app: RunningApp;
let browser: Browser;
let session: AppInBrowser | undefined;

before(async () => {
  session = await openAppInBrowser();
  ({ app, browser } = session);
});

after(async () => {
  await session?.close();
});

test('npm start serves the React shell and it reaches the engine', async () => {
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
