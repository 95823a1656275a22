// Files the app cannot read (a corrupt PDF, a 0-byte file, a 20,000 x 20,000 image) are refused with a clear
// message by the real server and page pipeline, and the app keeps working: a good file opens afterwards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { appInBrowserForFile, ARTIFACTS, openWelcome } from '../support/app-in-browser';
import { BAD_INPUTS } from '../support/bad-inputs';

const served = appInBrowserForFile();

const EXPECTED: Record<string, RegExp> = {
  'corrupt.pdf': /Could not open corrupt\.pdf: .*not a readable PDF/,
  'empty.png': /Could not open empty\.png: .*empty \(0 bytes\)/,
  'huge.png': /Could not open huge\.png: .*20000x20000 pixels/,
};

test('unreadable files give a clear message and the app keeps working', async () => {
  const { page, errors } = await openWelcome(served());
  for (const file of BAD_INPUTS) {
    await page.getByTestId('file-input').setInputFiles(file);
    const notice = page.getByTestId('notice').filter({ hasText: file.name });
    await notice.waitFor({ timeout: 20_000 });
    assert.match(await notice.innerText(), EXPECTED[file.name]!);
    await page.screenshot({ path: `${ARTIFACTS}/refused-${file.name}.png` });
    await page.getByTestId('welcome').waitFor();
  }
  const good = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#ffffff' } }).png().toBuffer();
  await page.getByTestId('file-input').setInputFiles({ name: 'blank.png', mimeType: 'image/png', buffer: good });
  await page.getByTestId('workspace').waitFor({ timeout: 20_000 });
  assert.equal(await page.getByTestId('document-pane').locator('.pane-title').innerText(), 'blank.png');
  assert.deepEqual(errors, []);
  await page.close();
});
