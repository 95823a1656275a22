// The model picker in Chromium against the real engine, through the browser transport: a typed path that is
// no folder is refused in one line with the model kept; a GLM-OCR folder (the tiny random checkpoint, copied
// beside a model card) loads, its name and card show, and the decode settings turn off the modes it cannot
// run; the folder is then among the recent ones, and the embedded model comes back from the picker.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type RunningApp } from '../support/app-server';
import { launchChromium } from '../support/browser';

const ROOT = join(__dirname, '..', '..');
const ADDON = join(ROOT, 'native/build/Release/saccade.node');
const GLM_TINY = join(ROOT, 'native/test/golden/glm_ocr/tiny');
const missing = [ADDON, join(GLM_TINY, 'config.json')].filter((p) => !existsSync(p));
const skip = missing.length ? `the engine or the tiny GLM-OCR folder is missing (${missing.join(', ')}): run 'npm run build:native'` : false;

const scratch = mkdtempSync(join(tmpdir(), 'saccade-picker-'));
const glmFolder = join(scratch, 'glm-ocr-tiny');
let app: RunningApp;
let browser: Browser;
let page: Page;
const errors: string[] = [];

before(async () => {
  if (skip) return;
  cpSync(GLM_TINY, glmFolder, { recursive: true });
  writeFileSync(join(glmFolder, 'README.md'), '# GLM-OCR tiny\n\nA random checkpoint for tests: it reads nothing.\n');
  // The recent folders go to a config folder of the test's own, not the user's.
  app = await startApp({ XDG_CONFIG_HOME: join(scratch, 'config') });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
});

after(async () => {
  await browser?.close();
  await app?.stop();
});

const loadTyped = async (path: string) => {
  await page.getByTestId('model-path').fill(path);
  await page.getByTestId('model-load').click();
};

test('the picker switches to a GLM-OCR folder, shows its card, and turns off the modes it cannot run', { skip }, async () => {
  await page.goto(app.url);
  const status = page.getByTestId('engine-status');
  await status.filter({ hasText: /engine · saccade-ocr-tiny/ }).waitFor({ timeout: 60_000 });
  await status.click();
  const picker = page.getByTestId('model-picker');
  await picker.waitFor();
  assert.equal(await picker.getByTestId('model-name').innerText(), 'saccade-ocr-tiny');
  // The card is drawn as Markdown: headings and tables, its training commands folded away, no raw markup.
  const card = picker.getByTestId('model-card');
  assert.match(await card.locator('h3').first().innerText(), /saccade-ocr-tiny/);
  assert.ok(await card.locator('table').count() > 0, 'its evaluation table is a table');
  assert.ok(await card.locator('details.card-code').count() > 0, 'its command lines are folded');
  assert.doesNotMatch(await card.innerText(), /```|^#+ /m);

  await loadTyped(join(scratch, 'no-such-model'));
  const error = await picker.getByTestId('model-error').innerText();
  assert.match(error, /no such folder/);
  assert.ok(!error.includes('\n'));
  assert.equal(await picker.getByTestId('model-name').innerText(), 'saccade-ocr-tiny', 'the model stays');

  await loadTyped(glmFolder);
  await picker.getByTestId('model-name').filter({ hasText: 'glm-ocr-tiny' }).waitFor({ timeout: 30_000 });
  assert.match(await picker.getByTestId('model-card').innerText(), /GLM-OCR tiny/);
  assert.match(await status.innerText(), /glm-ocr-tiny/);
  assert.equal(await picker.getByTestId('model-error').count(), 0, 'the earlier error is gone');

  await page.getByTestId('open-settings').click();
  const settings = page.getByTestId('settings');
  await settings.waitFor();
  const mode = settings.getByTestId('setting-mode');
  assert.equal(await mode.locator('option[value=spec]').isDisabled(), true);
  assert.equal(await mode.locator('option[value=diffusion]').isDisabled(), true);
  assert.equal(await mode.locator('option[value=mtp]').isDisabled(), false);
  assert.equal(await mode.inputValue(), 'mtp', 'the mode it cannot run gave way to its MTP head');
  assert.match(await settings.getByTestId('mode-limits').innerText(), /this model has no diffusion drafter \(a GLM-OCR folder needs the dual-mode conversion\)/);

  // Back through the picker: the folder is remembered, and the embedded model is one click away.
  await status.click();
  await picker.waitFor();
  await picker.getByRole('button', { name: 'Embedded model' }).click();
  await picker.getByTestId('model-name').filter({ hasText: 'saccade-ocr-tiny' }).waitFor({ timeout: 30_000 });
  await picker.getByTestId('model-recent').getByRole('button', { name: glmFolder }).waitFor();
  await page.getByTestId('open-settings').click();
  assert.equal(await page.getByTestId('setting-mode').locator('option[value=spec]').isDisabled(), false);
  assert.deepEqual(errors, []);
});
