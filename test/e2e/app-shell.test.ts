import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp, type RunningApp } from '../support/app-server';
import { launchChromium } from '../support/browser';

const ARTIFACTS = 'test-results/e2e';
let app: RunningApp;
let browser: Browser;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  app = await startApp();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await app?.stop();
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
