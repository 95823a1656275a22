// The editor's preview in Chromium, against a replayed decode (constructed events that follow the engine
// contract) served by the real server: the model's table, one line of <table><tr><td> in the editor, is a
// table in the preview; a cell clicked there selects its source in the editor (so typing replaces that
// cell's text and nothing else) and is shown where it was read on the page; and the Markdown stays the
// truth, the preview following it. Text that reads as HTML is shown as text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appInBrowserForFile, savedDraft } from '../support/app-in-browser';
import { replayScript, type ReplayData } from '../support/replay-transport';
import { renderSamplePage } from '../support/sample-page';
import { buildSyntheticDecode } from '../support/synthetic-decode';

const session = appInBrowserForFile();

test('the preview renders the table, and a cell clicked there selects its source in the editor', async () => {
  const data: ReplayData = { decode: buildSyntheticDecode(), pageBase64: Buffer.from(await renderSamplePage()).toString('base64'), batchMs: 2 };
  const context = await session().browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    await context.addInitScript(replayScript(data));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(session().app.url);
    await page.getByTestId('try-sample').click();
    await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 60_000 });
    await page.getByTestId('preview-toggle').click();
    const preview = page.getByTestId('preview');
    const table = preview.locator('table');
    await table.waitFor();
    const cells = await table.locator('tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
    assert.deepEqual(cells, [['Mode', 'Tokens/forward'], ['AR', '1.00'], ['Self-spec', '3.41']]);
    assert.equal(await preview.locator('h1').innerText(), 'Quarterly Report on Reading Speed');

    await table.locator('td', { hasText: '3.41' }).click();
    // The cell is shown where it was read on the page.
    await page.getByTestId('spotlight').waitFor({ timeout: 5_000 });
    await page.keyboard.type('3.45');
    await table.locator('td', { hasText: '3.45' }).waitFor({ timeout: 5_000 });
    await page.waitForTimeout(800);
    const text = (await savedDraft(page))!.text;
    assert.ok(text.includes('<tr><td>Self-spec</td><td>3.45</td></tr></tbody></table>'), 'only the cell\'s text was replaced');
    assert.ok(!text.includes('3.41'));
    // No element of the preview came from the text's markup but the table's.
    assert.equal(await preview.locator('script, img, iframe').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
