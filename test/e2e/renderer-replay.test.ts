// The renderer end to end in Chromium against a replayed decode (constructed events that follow the engine
// contract), served by the real server: the sample page decodes with streaming tokens, the timeline fills,
// hovering a token shows its heatmap, a line dropped as unsure is marked on the page with the model's guess,
// an edit survives a reload, the export equals the editor's text, and a loop the repetition guard took back
// leaves no trace.
// The same flows run against the real engine in engine-decode.test.ts where the engine is built.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningApp } from '../support/app-server';
import { appendEditAndReload, ARTIFACTS, exportAndDraft, openAppInBrowser, type AppInBrowser } from '../support/app-in-browser';
import { replayScript, type ReplayData } from '../support/replay-transport';
import { renderSamplePage } from '../support/sample-page';
import { buildSyntheticDecode, SAMPLE_REGIONS } from '../support/synthetic-decode';

let app: RunningApp;
let browser: Browser;
let session: AppInBrowser | undefined;
let data: ReplayData;
const contexts: BrowserContext[] = [];

before(async () => {
  const decode = buildSyntheticDecode();
  data = { decode, pageBase64: Buffer.from(await renderSamplePage()).toString('base64'), batchMs: 12 };
  session = await openAppInBrowser();
  ({ app, browser } = session);
});

/** A fresh profile per test: autosaved drafts from one test must not change what the next one sees. */
async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  contexts.push(context);
  await context.addInitScript(replayScript(data));
  return context.newPage();
}

after(async () => {
  for (const c of contexts) await c.close();
  await session?.close();
});

async function openSample(page: Page): Promise<void> {
  await page.goto(app.url);
  await page.getByTestId('try-sample').click();
  await page.getByTestId('workspace').waitFor();
}

test('a sample page decodes with streaming tokens, rounds and a live heatmap', async () => {
  const page = await newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openSample(page);
  // Mid-decode: tokens are already in the editor and the live heatmap follows the current token.
  await page.locator('.tok').first().waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid=heatmap]')?.getAttribute('data-heat-origin') === 'live');
  await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 30_000 });
  const rounds = Number(await page.getByTestId('timeline').getAttribute('data-rounds'));
  const expected = data.decode.batches.flat().filter((e) => e.type === 'round').length;
  assert.equal(rounds, expected);
  assert.ok(await page.locator('.tok-accepted').count() > 10, 'accepted tokens are tinted');
  assert.ok(await page.locator('.tok-corrected').count() > 0, 'corrected tokens are tinted');
  assert.ok(await page.locator('.view-lines .tok-check').count() > 0, 'tokens the model was unsure of are marked');
  assert.match(await page.getByTestId('stat-tpf').innerText(), /^[2-9]\.\d\d/);
  const unsure = page.locator('[data-unsure=p0-r4]');
  assert.equal(await unsure.count(), 1);
  assert.equal(await unsure.locator('title').textContent(), 'Not in the text: the model was 58% sure of "Fig. 3 ~ wave mn"');
  assert.deepEqual(errors, []);
  await page.close();
});

test('hovering a token shows its fixation heatmap on the page', async () => {
  const page = await newPage();
  await openSample(page);
  await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 30_000 });
  const heatmap = page.getByTestId('heatmap');
  assert.equal(await heatmap.getAttribute('data-heat-origin'), 'none');
  await page.locator('.tok-accepted').nth(20).hover();
  await page.waitForFunction(() => document.querySelector('[data-testid=heatmap]')?.getAttribute('data-heat-origin') === 'editor');
  assert.ok(Number(await heatmap.getAttribute('data-heat-cells')) > 0);
  // Hovering a bar of the timeline shows that round's drafted slots.
  const box = (await page.getByTestId('timeline').boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
  assert.ok(await page.getByTestId('round-detail').locator('.slot-accepted, .slot-corrected, .slot-free').count() > 0);
  // A token to check says why on hover.
  await page.locator('.view-lines .tok-check').first().hover();
  await page.locator('.monaco-hover', { hasText: /Check this: the model gave it a probability of 0\.\d\d/ }).waitFor({ timeout: 10_000 });
  await page.locator('.tok-accepted').nth(20).hover();
  await page.screenshot({ path: `${ARTIFACTS}/replay-decoded.png` });
  await page.close();
});

test('an edit survives a reload, and the exported file equals the editor text', async () => {
  const page = await newPage();
  await openSample(page);
  await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 30_000 });
  await appendEditAndReload(page, 'Reviewed by the night shift.');
  // The restored text is not decoded over: the draft is kept until the user decodes again.
  assert.equal(await page.getByTestId('decode').innerText(), 'Decode again');

  const { exported, draft } = await exportAndDraft(page);
  assert.equal(exported, draft);
  assert.match(exported, /^# Quarterly Report on Reading Speed/);
  assert.match(exported, /\$\$\n\\tau = \\frac/);
  assert.ok(exported.includes('<td>3.41</td></tr></tbody></table>'), 'the table is closed by its region_end tail');
  assert.match(exported, /Reviewed by the night shift\.$/);
  // The loop the repetition guard took back in the second region left no trace in the text.
  const second = SAMPLE_REGIONS[1]!.lines;
  assert.ok(exported.includes(second.at(-1)!), 'the second region ends with its last line');
  assert.ok(!exported.includes(' again'), 'the retracted loop is gone from the editor');
  await page.close();
});
