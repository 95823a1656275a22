// The renderer end to end in Chromium against a replayed decode (constructed events that follow the engine
// contract), served by the real server: the sample page decodes with streaming tokens, the timeline fills,
// hovering a token shows its heatmap, a line dropped as unsure is marked on the page with the model's guess,
// an edit survives a reload, the export equals the editor's text, a loop the repetition guard took back
// leaves no trace, an edit survives "Decode again" and a reload, restorable from a banner, a recent
// document's saved text can be forgotten from the welcome view, "Decode again" asks over edits and keeps a
// corrected word, a reload in the middle of it keeps the finished text, a reopened text comes back with its
// checking aids, and a first decode cut off is marked partial.
// The same flows run against the real engine in engine-decode.test.ts where the engine is built.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningApp } from '../support/app-server';
import { appendEditAndReload, ARTIFACTS, exportAndDraft, openAppInBrowser, savedDraft, type AppInBrowser } from '../support/app-in-browser';
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

/**
 * A fresh profile per test: autosaved drafts from one test must not change what the next one sees. A slower
 * replay (`batchMs`) leaves time to act in the middle of a decode.
 */
async function newPage(batchMs = data.batchMs): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  contexts.push(context);
  await context.addInitScript(replayScript({ ...data, batchMs }));
  return context.newPage();
}

const expectedRounds = () => data.decode.batches.flat().filter((e) => e.type === 'round').length;

/** Reloads the page and opens the sample again, as a user coming back to it would. */
async function reloadAndReopen(page: Page): Promise<void> {
  await page.reload();
  await page.getByTestId('try-sample').click();
  await page.getByTestId('workspace').waitFor();
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
  assert.equal(rounds, expectedRounds());
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

test('an edit survives "Decode again" and a reload: asked first, kept in the new text, set aside, and the banner restores it', async () => {
  const page = await newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openSample(page);
  const done = page.getByTestId('progress').and(page.locator('[data-phase=done]'));
  await done.waitFor({ timeout: 30_000 });
  const edit = 'Signed off by the night shift.';
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(`\n\n${edit}`);
  // Straight away, with no pause for the autosave: decoding again must ask, and not take the edit with it.
  await page.getByTestId('decode').click();
  await page.getByTestId('decode-again-confirm').click();
  const banner = page.getByTestId('set-aside');
  await banner.waitFor();
  await done.waitFor({ timeout: 30_000 });
  await page.waitForTimeout(800);
  assert.match((await savedDraft(page))!.text, /night shift\.$/, 'the new decode keeps the added line');

  await reloadAndReopen(page);
  await banner.waitFor();
  assert.match(await banner.innerText(), /Your edited text from .* is set aside: the editor shows the text that replaced it/);
  await page.screenshot({ path: `${ARTIFACTS}/replay-set-aside.png` });
  await page.getByTestId('restore-edit').click();
  await banner.waitFor({ state: 'detached' });
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('Control+End');
  await page.locator('.view-lines').filter({ hasText: edit }).waitFor({ timeout: 10_000 });
  await page.waitForTimeout(800);
  assert.match((await savedDraft(page))!.text, /# Quarterly Report on Reading Speed[\s\S]*Signed off by the night shift\.$/);
  assert.equal(await page.getByTestId('decode').innerText(), 'Decode again');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the welcome view lists a decoded document as recent, and forgets its text when asked', async () => {
  const page = await newPage();
  await openSample(page);
  await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 30_000 });
  await page.getByLabel('Close document').click();
  const recent = page.getByTestId('recent');
  assert.match(await recent.innerText(), /sample-report\.png · decoded /);
  await recent.getByTestId('forget').click();
  await recent.waitFor({ state: 'detached' });
  assert.equal(await savedDraft(page), null);
  await page.close();
});

/** What the user checks with is on screen: tinted tokens, words to check, every round, a token's heatmap. */
async function checkingAidsShown(page: Page): Promise<void> {
  assert.ok(await page.locator('.view-lines .tok-accepted').count() > 10, 'tokens are tinted');
  assert.ok(await page.locator('.view-lines .tok-check').count() > 0, 'words to check are marked');
  assert.equal(Number(await page.getByTestId('timeline').getAttribute('data-rounds')), expectedRounds());
  await page.locator('.tok-accepted').nth(20).hover();
  await page.waitForFunction(() => document.querySelector('[data-testid=heatmap]')?.getAttribute('data-heat-origin') === 'editor');
}

/** Selects `word` on the editor's first line (Monaco's find widget would take the keyboard). */
async function selectInFirstLine(page: Page, word: string): Promise<void> {
  const line = await page.locator('.view-line').first().innerText();
  const at = line.replace(/\u00a0/g, ' ').indexOf(word);
  assert.ok(at >= 0, `${word} is on the first line`);
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < at; i++) await page.keyboard.press('ArrowRight');
  for (let i = 0; i < word.length; i++) await page.keyboard.press('Shift+ArrowRight');
}

test('a word the user corrected is kept by a new decode, and the tokens around it keep their tints', async () => {
  const page = await newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openSample(page);
  const done = page.getByTestId('progress').and(page.locator('[data-phase=done]'));
  await done.waitFor({ timeout: 30_000 });
  await selectInFirstLine(page, 'Quarterly');
  await page.keyboard.type('Annual');
  await page.getByTestId('decode').click();
  const dialog = page.getByTestId('decode-again-dialog');
  assert.match(await dialog.innerText(), /keeps your corrections/);
  // Declining keeps the text as it is, without decoding.
  await page.getByTestId('decode-again-cancel').click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await page.locator('[data-testid=progress][data-phase=done]').count(), 1);
  await page.getByTestId('decode').click();
  await page.getByTestId('decode-again-confirm').click();
  await page.locator('[data-testid=progress][data-phase=decoding]').waitFor();
  await done.waitFor({ timeout: 30_000 });
  await page.waitForTimeout(800);
  assert.match((await savedDraft(page))!.text, /^# Annual Report on Reading Speed\n/);
  await page.locator('.view-line', { hasText: 'Annual Report' }).waitFor();
  assert.ok(await page.locator('.view-lines .tok-accepted').count() > 10, 'the new decode\'s tokens are tinted around the correction');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a reload in the middle of "Decode again" keeps the finished text, with its checking aids', async () => {
  const page = await newPage(80);
  await openSample(page);
  const done = page.getByTestId('progress').and(page.locator('[data-phase=done]'));
  await done.waitFor({ timeout: 60_000 });
  await page.waitForTimeout(800);
  const finished = (await savedDraft(page))!.text;
  await page.getByTestId('decode').click();
  await page.locator('[data-testid=progress][data-phase=decoding]').waitFor();
  await page.locator('.tok').nth(5).waitFor();
  await page.waitForTimeout(600);
  assert.ok(await page.locator('[data-testid=progress][data-phase=decoding]').count() === 1, 'reloaded mid-decode');
  await reloadAndReopen(page);
  assert.match(await page.getByTestId('draft-notice').innerText(), /did not finish .*: the text from before it is shown/);
  assert.equal((await savedDraft(page))!.text, finished, 'the finished text was not replaced by the partial one');
  assert.equal(await page.getByTestId('partial-banner').count(), 0);
  await checkingAidsShown(page);
  assert.match(await page.getByTestId('stat-tpf').innerText(), /^[2-9]\.\d\d/);
  await page.close();
});

test('after a reload an edited text comes back with its underlines, rounds and heatmaps', async () => {
  const page = await newPage();
  await openSample(page);
  await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 30_000 });
  await appendEditAndReload(page, 'Checked on Monday.');
  await page.keyboard.press('Control+Home');
  await checkingAidsShown(page);
  assert.match((await savedDraft(page))!.text, /Checked on Monday\.$/);
  await page.close();
});

test('a first decode cut off by a reload is shown as partial, on the page and in the recent list', async () => {
  const page = await newPage(80);
  await openSample(page);
  await page.locator('.tok').nth(5).waitFor();
  await page.waitForTimeout(600);
  await reloadAndReopen(page);
  await page.getByTestId('partial-banner').waitFor();
  assert.match(await page.getByTestId('draft-notice').innerText(), /its text so far is shown, marked partial/);
  const download = page.waitForEvent('download');
  await page.getByTestId('export').click();
  await download;
  assert.match(await page.getByTestId('notice').innerText(), /Exported sample-report\.md \([\d,]+ characters\) to your browser's downloads\. It holds partial text/);
  await page.getByLabel('Close document').click();
  assert.match(await page.getByTestId('recent').innerText(), /decoded \(partial\)/);
  await page.close();
});
