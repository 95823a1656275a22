// The view keeps in step with what the reviewer does, in Chromium against a replayed three-page decode
// (constructed events that follow the engine contract) served by the real server: regions streamed together,
// as the page pipeline streams a page's lines, keep their order and separators; a thumbnail clicked after
// F8 moved to another page brings that page's text into the editor; Ctrl+= zooms one step from the fitted
// page, as the + button does; what was said about one document goes when another is opened, in one
// notification area that stays a few lines tall; a round whose tokens were taken back says what it wrote; and
// the time left follows the rate regions finish at.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { appInBrowserForFile, savedDraft } from '../support/app-in-browser';
import { replayScript, type ReplayData } from '../support/replay-transport';
import { renderSamplePage } from '../support/sample-page';
import { buildSyntheticDecode, interleaveRegions } from '../support/synthetic-decode';

const session = appInBrowserForFile();

async function replayPage(batchMs: number, decode = buildSyntheticDecode({ pages: 3 })): Promise<Page> {
  const data: ReplayData = { decode, pageBase64: Buffer.from(await renderSamplePage()).toString('base64'), batchMs };
  const context = await session().browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript(replayScript(data));
  const page = await context.newPage();
  await page.goto(session().app.url);
  return page;
}

/**
 * The three pages decoded; `interleaved`: as the page pipeline streams them, the regions of a page together,
 * each page's first region a running header (which, unlike a title, has nothing written before its text).
 */
async function decoded(interleaved = false): Promise<Page> {
  const decode = buildSyntheticDecode({ pages: 3 });
  if (interleaved) {
    const headed = decode.batches.map((batch) => batch.map((e) => (e.type === 'page_layout'
      ? { ...e, regions: e.regions.map((r) => (r.kind === 'title' ? { ...r, kind: 'header' as const } : r)) } : e)));
    decode.batches = interleaveRegions(headed);
  }
  const page = await replayPage(2, decode);
  await page.getByTestId('try-sample').click();
  await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 60_000 });
  return page;
}

const pageNumber = (page: Page) => page.getByTestId('page-number').innerText();
/** The editor shows its first line: the top of page 1's text. */
const firstLineShown = (page: Page) => page.locator('.monaco-editor .line-numbers', { hasText: /^1$/ }).count();

test('regions streamed together stand in reading order with their separators, as when streamed one by one', async () => {
  const pages = [await decoded(), await decoded(true)];
  try {
    await pages[0]!.waitForTimeout(800);
    const [one, together] = [(await savedDraft(pages[0]!))!.text, (await savedDraft(pages[1]!))!.text];
    assert.match(one, /^# Quarterly Report on Reading Speed\n\nSelf-speculative decoding/);
    assert.equal(together, one.replace(/^# |(?<=<!-- page \d -->\n\n)# /gm, ''), 'the same text, the headers not headings');
  } finally {
    for (const p of pages) await p.context().close();
  }
});

test('a thumbnail clicked after F8 moved to another page brings that page\'s text into the editor', async () => {
  const page = await decoded(true);
  try {
    await page.locator('.monaco-editor .view-lines').click();
    await page.keyboard.press('Control+Home');
    while (await pageNumber(page) !== '2 / 3') {
      await page.keyboard.press('F8');
      await page.getByTestId('to-check').filter({ hasText: / of / }).waitFor();
    }
    await page.waitForFunction(() => !document.querySelector('.monaco-editor .line-numbers')?.textContent?.match(/^1$/), null, { timeout: 5_000 })
      .catch(() => undefined);
    assert.equal(await firstLineShown(page), 0, 'F8 scrolled the editor to page 2');
    await page.locator('.thumb').nth(0).click();
    assert.equal(await pageNumber(page), '1 / 3');
    await page.locator('.monaco-editor .line-numbers', { hasText: /^1$/ }).waitFor({ timeout: 5_000 });
    await page.locator('.thumb').nth(2).click();
    await page.locator('.view-line', { hasText: '<!-- page 3 -->' }).waitFor({ timeout: 5_000 });
    // The preview follows the page chosen too.
    await page.getByTestId('preview-toggle').click();
    const mark = page.getByTestId('preview').locator('[data-page="3"]');
    await mark.waitFor();
    const [shown, preview] = [(await mark.boundingBox())!, (await page.getByTestId('preview').boundingBox())!];
    assert.ok(shown.y >= preview.y && shown.y < preview.y + preview.height, 'page 3 stands in the preview\'s view');
    await page.locator('.thumb').nth(0).click();
    await page.waitForFunction(() => document.querySelector('[data-testid=preview]')?.scrollTop === 0);
  } finally {
    await page.context().close();
  }
});

test('Ctrl+= zooms one step from the fitted page, as the + button does', async () => {
  const page = await decoded();
  try {
    const zoom = page.locator('.zoom-value');
    const fitted = Number((await zoom.innerText()).replace('%', ''));
    assert.ok(fitted < 100, `the page is fitted at ${fitted}%`);
    await page.keyboard.press('Control+=');
    const byKey = await zoom.innerText();
    await zoom.click();
    await zoom.filter({ hasText: `${fitted}%` }).waitFor();
    await page.getByTitle('Zoom in (Ctrl+=)').click();
    assert.equal(await zoom.innerText(), byKey);
    assert.ok(Math.abs(Number(byKey.replace('%', '')) - fitted * 1.25) <= 1, `${fitted}% to ${byKey}`);
    await page.keyboard.press('Control+-');
    await zoom.filter({ hasText: `${fitted}%` }).waitFor();
  } finally {
    await page.context().close();
  }
});

test('what was said about one document goes when another is opened, in one area a few lines tall', async () => {
  const page = await replayPage(80);
  try {
    await page.getByTestId('try-sample').click();
    await page.locator('.tok').nth(5).waitFor();
    await page.reload();
    await page.getByTestId('try-sample').click();
    const cutOff = page.getByTestId('draft-notice').filter({ hasText: /A decode of sample-report\.png did not finish/ });
    await cutOff.waitFor();
    await page.getByTestId('file-input').setInputFiles({ name: 'other.png', mimeType: 'image/png', buffer: Buffer.from(await renderSamplePage()) });
    await page.locator('.document-pane .pane-title', { hasText: 'other.png' }).waitFor();
    assert.equal(await cutOff.count(), 0, 'the banner about sample-report.png is gone');
    assert.equal(await page.getByTestId('notification-area').filter({ hasText: 'sample-report.png' }).count(), 0);
    const area = (await page.getByTestId('notification-area').boundingBox())!;
    assert.ok(area.height <= 120, `the notification area is ${area.height} px tall`);
  } finally {
    await page.context().close();
  }
});

test('a round whose tokens were taken back says what it wrote, not that it kept nothing', async () => {
  const decode = buildSyntheticDecode({ pages: 3 });
  const rounds = decode.batches.flat().filter((e) => e.type === 'round');
  // The second region's loop, which the repetition guard took back.
  const loop = rounds.findLastIndex((e) => e.type === 'round' && e.regionId === 'p0-r1');
  const page = await replayPage(2, decode);
  try {
    await page.getByTestId('try-sample').click();
    await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 60_000 });
    const box = (await page.getByTestId('timeline').boundingBox())!;
    const slot = (box.width - 68) / rounds.length;
    await page.mouse.click(box.x + 34 + (loop + 0.5) * slot, box.y + box.height / 2);
    await page.getByTestId('round-detail').and(page.locator(`[data-round="${loop}"]`)).waitFor();
    const wrote = await page.getByTestId('round-wrote').innerText();
    assert.doesNotMatch(wrote, /nothing kept/);
    assert.match(wrote, /wrote\W*again again again again again again\W*, since taken back/);
  } finally {
    await page.context().close();
  }
});

test('the time left follows the rate regions finish at, not the time before the first one did', async () => {
  const decode = buildSyntheticDecode({ pages: 3 });
  const total = decode.regions.length;
  // As the engine reports a page read in batches: the first region done after 19 s of analysis and the first
  // batch, the others 0.1 s apart; the engine's own estimate spreads the 19 s over them.
  decode.batches = decode.batches.map((batch) => batch.map((e) => {
    if (e.type !== 'progress') return e;
    const elapsedMs = 19_000 + 100 * (e.regionsDone - 1);
    return { ...e, elapsedMs, remainingMs: (elapsedMs / e.regionsDone) * (total - e.regionsDone) };
  }));
  const page = await replayPage(40, decode);
  try {
    await page.getByTestId('try-sample').click();
    const label = page.locator('.progress-label', { hasText: `2 of ${total} regions` });
    await label.waitFor({ timeout: 30_000 });
    assert.equal(await label.innerText(), `Page 1/3 · 2 of ${total} regions · about 1 s left`);
  } finally {
    await page.context().close();
  }
});
