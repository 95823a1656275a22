// The searchable PDF export in Chromium against the real engine and the shipped model, through the browser
// transport: the sample scan decodes, the user corrects a word and types a line, clicks "Searchable PDF", and
// the PDF the browser downloads holds the edited text (poppler's pdftotext reads it) over the sample's page;
// after a reload the document exports the same words in the same places. The words' places are checked in main/node/exports/edited-pdf.test.ts. Skipped, with the reason, where the engine or
// the model is missing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { appInBrowserForFile, openWelcome } from '../support/app-in-browser';

const ROOT = join(__dirname, '..', '..');
const missing = ['native/build/Release/saccade.node', 'assets/models/saccade-ocr-tiny/config.json', 'assets/samples/samples.json']
  .filter((p) => !existsSync(join(ROOT, p)));
const skip = missing.length ? `the real engine is not available here (missing ${missing.join(', ')})` : false;
const app = skip ? null : appInBrowserForFile();

test('an edited decode exports as a searchable PDF whose text layer is the edited text', { skip, timeout: 300_000 }, async () => {
  const { page, errors } = await openWelcome(app!());
  await page.getByTestId('engine-status').filter({ hasText: /engine ·/ }).waitFor({ timeout: 60_000 });
  await page.getByTestId('try-sample').click();
  await page.locator('[data-testid=progress][data-phase=done]').waitFor({ timeout: 240_000 });
  // The first line's last word becomes "Zebrafish" (a word no scan holds); a line is typed at the end.
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('End');
  await page.keyboard.press('Control+Shift+ArrowLeft');
  await page.keyboard.type('Zebrafish');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n\nA line typed by the reviewer');
  const downloading = page.waitForEvent('download');
  await page.getByTestId('export-pdf').click();
  const download = await downloading;
  assert.match(download.suggestedFilename(), /\.searchable\.pdf$/);
  const file = await download.path();
  await page.getByTestId('notice').filter({ hasText: /Exported .*\.searchable\.pdf/ }).waitFor();
  const text = spawnSync('pdftotext', ['-raw', file, '-'], { encoding: 'utf8' });
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /Zebrafish/);
  assert.match(text.stdout.replace(/\s+/g, ' '), /A line typed by the reviewer/);
  const info = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
  assert.match(info.stdout, /Pages:\s+1\b/);

  // Reloaded and opened again, the document exports the same words in the same places: the decode behind the
  // text came back with it.
  await page.waitForTimeout(1_500);
  await page.reload();
  await page.getByTestId('try-sample').click();
  await page.locator('[data-testid=progress][data-phase=done]').waitFor({ timeout: 20_000 });
  const again = page.waitForEvent('download');
  await page.getByTestId('export-pdf').click();
  const reloaded = await (await again).path();
  const words = (pdf: string) => spawnSync('pdftotext', ['-bbox', pdf, '-'], { encoding: 'utf8' }).stdout.match(/<word [^>]*>[^<]*<\/word>/g) ?? [];
  assert.ok(words(file).length > 50, `${words(file).length} words`);
  assert.deepEqual(words(reloaded), words(file));
  assert.deepEqual(errors, []);
});
