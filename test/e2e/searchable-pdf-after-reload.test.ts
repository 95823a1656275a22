// The searchable PDF after a reload, in Chromium: exported from a document reopened after the page was
// reloaded, it is sent the decode's word places (every page's layout and every token with the crop it was read
// in and where the model looked), as it was before the reload; where the decode behind the text is not kept,
// the export is refused in one line instead of piling the words at the pages' tops. Replayed decodes
// (constructed events that follow the engine contract) and the real server; the replay answers the export
// itself, and the engine's part is tested in main/node/exports/edited-pdf.test.ts and searchable-pdf-export.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TokenEvent } from '../../common/engine-types';
import type { RequestMap } from '../../common/protocol';
import { appInBrowserForFile } from '../support/app-in-browser';
import { replayScript, type ReplayData } from '../support/replay-transport';
import { renderSamplePage } from '../support/sample-page';
import { buildSyntheticDecode } from '../support/synthetic-decode';

const session = appInBrowserForFile();
const decode = buildSyntheticDecode({ pages: 2, dense: 14 });
const tokens = decode.batches.flat().filter((e) => e.type === 'token').length;

type ExportRequest = RequestMap['exportSearchablePdf'][0];

/** The two-page document decoded in a fresh profile, then the page reloaded and the document opened again. */
async function decodedAndReloaded(beforeReload: (page: Page) => Promise<void> = async () => undefined): Promise<Page> {
  const batches = Array.from({ length: Math.ceil(decode.batches.length / 20) }, (_, i) => decode.batches.slice(i * 20, i * 20 + 20).flat());
  const data: ReplayData = { decode: { ...decode, batches }, pageBase64: Buffer.from(await renderSamplePage()).toString('base64'), batchMs: 1 };
  const context = await session().browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  await context.addInitScript(replayScript(data));
  const page = await context.newPage();
  await page.goto(session().app.url);
  await page.getByTestId('try-sample').click();
  await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 60_000 });
  await page.waitForTimeout(1_500);
  await beforeReload(page);
  await page.reload();
  await page.getByTestId('try-sample').click();
  await page.getByTestId('workspace').waitFor();
  return page;
}

const exportRequests = (page: Page) => page.evaluate(() => (window as unknown as { exportRequests: ExportRequest[] }).exportRequests);

test('after a reload, the searchable PDF is sent every word\'s place from the kept decode', async () => {
  const page = await decodedAndReloaded();
  try {
    await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor();
    const download = page.waitForEvent('download');
    await page.getByTestId('export-pdf').click();
    await download;
    await page.getByTestId('notice').filter({ hasText: /Exported sample-report\.searchable\.pdf/ }).waitFor();
    const [request] = await exportRequests(page);
    const layouts = request!.events.filter((e) => e.type === 'page_layout').map((e) => e.type === 'page_layout' && e.page);
    assert.deepEqual(layouts, [0, 1], 'both pages\' layouts');
    const sent = request!.events.filter((e): e is TokenEvent => e.type === 'token');
    assert.equal(sent.length, tokens, 'every token the decode wrote');
    const placed = sent.filter((t) => t.fixation !== null && t.fixation.indices.length === 1);
    assert.equal(placed.length, tokens, 'each with where the model looked (the cell its word box is made of)');
    assert.match(request!.text, /^# Quarterly Report on Reading Speed/);
  } finally {
    await page.context().close();
  }
});

test('after a reload that lost the decode behind the text, the export is refused in one line', async () => {
  const page = await decodedAndReloaded((p) => p.evaluate(() => new Promise<void>((resolve, reject) => {
    const r = indexedDB.deleteDatabase('saccade');
    r.onsuccess = () => resolve();
    r.onerror = () => reject(r.error);
    r.onblocked = () => resolve();
  })));
  try {
    await page.getByTestId('aids-notice').filter({ hasText: /were not kept: decode again to see them/ }).waitFor();
    await page.getByTestId('export-pdf').click();
    const notice = page.getByTestId('notice').filter({ hasText: /Could not export/ });
    await notice.waitFor();
    assert.equal(await notice.locator('span').innerText(), 'Could not export sample-report.searchable.pdf: the places of its words are not known here (the decode behind the text is not kept): decode it again, then export');
    assert.deepEqual(await exportRequests(page), [], 'nothing was sent to be laid out at the pages\' tops');
  } finally {
    await page.context().close();
  }
});
