// A reviewer's checking aids survive a reload in Chromium, for documents the size of real ones: a dense two-page
// document (about 4,000 tokens, each with its heatmap; its decode is more than the million characters of JSON
// the app kept before, heatmaps or not) and one dense page. After the page is reloaded and the document opened
// again, the words to check are counted and walked with F8, the tokens are tinted and underlined, every round is
// in the timeline, a token's heatmap is drawn, the region boxes are on the page, and the statistics still say
// what fixation did. Replayed decodes (constructed events that follow the engine contract), the real server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { appInBrowserForFile } from '../support/app-in-browser';
import { replayScript, type ReplayData } from '../support/replay-transport';
import { renderSamplePage } from '../support/sample-page';
import { buildSyntheticDecode } from '../support/synthetic-decode';

const session = appInBrowserForFile();

/** What a reviewer checks with, as the page shows it now. */
async function aids(page: Page) {
  return {
    toCheck: Number(await page.getByTestId('to-check').getAttribute('data-count')),
    rounds: Number(await page.getByTestId('timeline').getAttribute('data-rounds')),
    regions: await page.locator('[data-testid=region-boxes] .region-box').count(),
    fixation: await page.getByTestId('stat-visual').getAttribute('title'),
  };
}

for (const { title, pages, dense } of [
  { title: 'a dense two-page document', pages: 2, dense: 14 },
  { title: 'one dense page', pages: 1, dense: 24 },
]) {
  test(`after a reload, ${title} comes back with its count, underlines, rounds, heatmaps, region boxes and statistics`, async () => {
    const decode = buildSyntheticDecode({ pages, dense });
    const tokens = decode.batches.flat().filter((e) => e.type === 'token').length;
    // Streamed 20 batches at a time: the decode takes seconds, not the half minute of one batch a frame.
    const batches = Array.from({ length: Math.ceil(decode.batches.length / 20) }, (_, i) => decode.batches.slice(i * 20, i * 20 + 20).flat());
    const data: ReplayData = { decode: { ...decode, batches }, pageBase64: Buffer.from(await renderSamplePage()).toString('base64'), batchMs: 1 };
    const context = await session().browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      await context.addInitScript(replayScript(data));
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(session().app.url);
      await page.getByTestId('try-sample').click();
      await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 120_000 });
      await page.getByTestId('to-check').waitFor();
      const before = await aids(page);
      assert.ok(before.toCheck > 0 && before.rounds > 0 && before.regions > 0, JSON.stringify(before));
      assert.match(before.fixation!, /Fixation prunes/);
      // The decode is kept once it has been written away; the autosave of the text too.
      await page.waitForTimeout(1_500);

      await page.reload();
      await page.getByTestId('try-sample').click();
      await page.getByTestId('workspace').waitFor();
      await page.getByTestId('to-check').waitFor({ timeout: 20_000 });
      assert.deepEqual(await aids(page), before, `${tokens} tokens: the same aids after the reload`);
      assert.equal(await page.getByTestId('aids-notice').count(), 0, 'nothing was dropped, so nothing is said');
      assert.ok(await page.locator('.view-lines .tok-check').count() > 0, 'words to check are underlined');
      assert.ok(await page.locator('.view-lines .tok-accepted').count() > 10, 'tokens are tinted');
      await page.locator('.view-lines .tok-accepted').nth(20).hover();
      await page.waitForFunction(() => document.querySelector('[data-testid=heatmap]')?.getAttribute('data-heat-origin') === 'editor');
      assert.ok(Number(await page.getByTestId('heatmap').getAttribute('data-heat-cells')) > 1, 'the whole heatmap, not only its peak');
      await page.locator('.monaco-editor .view-lines').click();
      await page.keyboard.press('Control+Home');
      await page.keyboard.press('F8');
      await page.getByTestId('to-check').filter({ hasText: `1 of ${before.toCheck} to check` }).waitFor({ timeout: 5_000 });
      await page.getByTestId('spotlight').waitFor({ timeout: 5_000 });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
