// A PDF's pages are drawn by pdf.js in the page view and the thumbnails. The view redraws whenever its width
// changes (fitting the window as it lays out, zooming), and pdf.js refuses a second render into a canvas
// while one runs: the page must end drawn at its final size, with no "no preview" notice over it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { appInBrowserForFile, ARTIFACTS, openWelcome } from '../support/app-in-browser';

const PDF = join(__dirname, '..', '..', 'assets', 'samples', 'two-page-report.pdf');

const served = appInBrowserForFile();

test('a PDF page is drawn at the size shown, through refits and zooms, with no missing-preview notice', async () => {
  const { page, errors } = await openWelcome(served());
  await page.getByTestId('file-input').setInputFiles(PDF);
  await page.getByTestId('workspace').waitFor({ timeout: 20_000 });
  // Zoom in and out at once: each step starts a new render while the last one is still running.
  await page.getByTitle(/^Zoom in/).click();
  await page.getByTitle(/^Zoom out/).click();
  await page.getByTitle(/^Zoom in/).click();
  const canvas = page.getByTestId('page-canvas');
  // Drawn at its final size: the bitmap as wide as the element on screen, with ink on it.
  await page.waitForFunction(() => {
    const c = document.querySelector<HTMLCanvasElement>('[data-testid="page-canvas"]');
    if (!c || c.width === 0 || Math.abs(c.width - c.getBoundingClientRect().width * devicePixelRatio) > 1) return false;
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < px.length; i += 4) if (px[i]! < 128) return true;
    return false;
  }, null, { timeout: 20_000 });
  await page.waitForTimeout(1000);
  assert.equal(await page.locator('.page-missing').count(), 0, 'no page or thumbnail says it has no preview');
  assert.ok(await canvas.isVisible());
  await page.screenshot({ path: `${ARTIFACTS}/pdf-page.png` });
  assert.deepEqual(errors, []);
  await page.close();
});
