// Reviewing a decoded document in Chromium, against a replayed decode of three pages (constructed events
// that follow the engine contract), served by the real server: F8 and Shift+F8 walk the words to check in
// reading order across pages, showing each on its page with its heatmap; a word that only the two readers'
// votes flag (the decoder sure, the line's own reading not) is underlined with both votes and F8 stops on it
// (the counter names the word it went to); a round clicked in the timeline
// stays picked and shows what it wrote in the editor and on the page; choosing a page brings its text into
// view; the export separates the pages; the statistics say how the speed against AR was obtained and what
// fixation did; and Escape closes the settings and the model picker without cancelling anything.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { CHECK_BELOW } from '../../common/confidence';
import type { TokenEvent } from '../../common/engine-types';
import type { SessionEvent } from '../../common/protocol';
import { exportAndDraft, openAppInBrowser, type AppInBrowser } from '../support/app-in-browser';
import { replayScript, type ReplayData } from '../support/replay-transport';
import { renderSamplePage } from '../support/sample-page';
import { buildSyntheticDecode, DISPUTED_READ } from '../support/synthetic-decode';

let session: AppInBrowser | undefined;
let data: ReplayData;
const contexts: BrowserContext[] = [];

before(async () => {
  data = { decode: buildSyntheticDecode({ pages: 3 }), pageBase64: Buffer.from(await renderSamplePage()).toString('base64'), batchMs: 4 };
  session = await openAppInBrowser();
});

after(async () => {
  for (const c of contexts) await c.close();
  await session?.close();
});

/** A fresh profile with the three-page document decoded. */
async function decodedDocument(): Promise<{ page: Page; errors: string[] }> {
  const context = await session!.browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  contexts.push(context);
  await context.addInitScript(replayScript(data));
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(session!.app.url);
  await page.getByTestId('try-sample').click();
  await page.getByTestId('progress').and(page.locator('[data-phase=done]')).waitFor({ timeout: 60_000 });
  return { page, errors };
}

const pageNumber = (page: Page) => page.getByTestId('page-number').innerText();

test('F8 and Shift+F8 walk the words to check across pages, each shown on its page with its heatmap', async () => {
  const { page, errors } = await decodedDocument();
  const counter = page.getByTestId('to-check');
  const count = Number(await counter.getAttribute('data-count'));
  assert.ok(count >= 6, `the replay has words to check on every page (${count})`);
  assert.match(await counter.innerText(), new RegExp(`^‹\\s*${count} to check\\s*›$`));
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('Control+Home');
  const pages: string[] = [];
  for (let i = 1; i <= count; i++) {
    await page.keyboard.press('F8');
    await counter.filter({ hasText: `${i} of ${count} to check` }).waitFor();
    pages.push(await pageNumber(page));
    // The word is selected in the editor, outlined on its page, and its heatmap drawn. Monaco paints the
    // selection on its next animation frame, after the counter has changed, so each is waited for.
    await page.locator('.monaco-editor .selected-text').first().waitFor({ timeout: 5_000 });
    await page.getByTestId('spotlight').waitFor({ timeout: 5_000 });
    await page.getByTestId('heatmap').and(page.locator('[data-heat-origin=editor]')).waitFor({ timeout: 5_000 });
  }
  assert.deepEqual([...new Set(pages)], ['1 / 3', '2 / 3', '3 / 3'], 'in reading order, page after page');
  await page.keyboard.press('F8');
  await counter.filter({ hasText: `1 of ${count} to check` }).waitFor();
  assert.equal(await pageNumber(page), '1 / 3', 'past the last word, the first comes again');
  await page.keyboard.press('Shift+F8');
  await counter.filter({ hasText: `${count} of ${count} to check` }).waitFor();
  assert.equal(await pageNumber(page), '3 / 3');
  // The toolbar's arrows do the same.
  await page.getByLabel('Previous word to check').click();
  await counter.filter({ hasText: `${count - 1} of ${count} to check` }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

/** The first word of the replay holding a disputed token whose every token the decoder alone would call sure. */
function votedOnlyWord(events: readonly SessionEvent[]): { disputed: TokenEvent; word: string } {
  const tokens = events.filter((e): e is TokenEvent => e.type === 'token');
  for (const disputed of tokens.filter((t) => t.readProb === DISPUTED_READ)) {
    const own = tokens.filter((t) => t.regionId === disputed.regionId).sort((a, b) => a.index - b.index);
    const text = own.map((t) => t.text).join('');
    const at = own.slice(0, disputed.index).reduce((n, t) => n + t.text.length, 0) + disputed.text.length - disputed.text.trimStart().length;
    const start = text.slice(0, at).search(/\S*$/);
    const end = at + text.slice(at).search(/\s|$/);
    let offset = 0;
    const inWord = own.filter((t) => {
      const [a, b] = [offset, (offset += t.text.length)];
      return b > start && a < end && t.text.trim() !== '';
    });
    if (inWord.every((t) => t.arProb >= CHECK_BELOW)) return { disputed, word: text.slice(start, end) };
  }
  throw new Error('the replay has no word that only the votes flag');
}

test('a word the decoder is sure of but its line\'s own reading disputes is underlined with both votes, and F8 stops on it', async () => {
  const { page, errors } = await decodedDocument();
  // The replay's first word the votes alone flag: every token of it the decoder is sure of, one of them
  // disputed by the line encoder's CTC head (0.30; synthetic-decode.ts).
  const { disputed, word } = votedOnlyWord(data.decode.batches.flat());
  const underlined = page.locator('.view-lines .tok-check', { hasText: disputed.text.trim() });
  await underlined.first().waitFor({ timeout: 5_000 });
  // Monaco keeps one hover widget and changes its text: each underlined piece is hovered in turn until it says 0.30.
  const hoverSays = (text: string) => page.waitForFunction((t) => [...document.querySelectorAll('.monaco-hover')].some((h) => (h as HTMLElement).innerText.includes(t)), text, { timeout: 2_000 })
    .then(() => true, () => false);
  let found = false;
  for (let i = 0; i < (await underlined.count()) && !found; i++) {
    await page.mouse.move(0, 0);
    await underlined.nth(i).hover();
    found = await hoverSays("the line's own reading 0.30");
  }
  const hover = await page.locator('.monaco-hover').filter({ hasText: 'own reading 0.30' }).first().innerText();
  assert.match(hover, new RegExp(`the decoder gave it a probability of ${disputed.decoderProb.toFixed(2)}, the line's own reading 0\\.30`));
  // F8 from the top stops on its word among the words to check of page 1.
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('Control+Home');
  const counter = page.getByTestId('to-check');
  const count = Number(await counter.getAttribute('data-count'));
  const selected: string[] = [];
  for (let i = 1; i <= count && !selected.includes(word); i++) {
    await page.keyboard.press('F8');
    await counter.filter({ hasText: `${i} of ${count} to check` }).waitFor();
    selected.push((await page.getByTestId('to-check-at').getAttribute('data-word')) ?? '');
  }
  assert.ok(selected.includes(word), `F8 stopped on ${JSON.stringify(selected)}, not on ${word}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a round clicked in the timeline stays picked, and what it wrote is shown in the editor and on the page', async () => {
  const { page, errors } = await decodedDocument();
  const timeline = page.getByTestId('timeline');
  const box = (await timeline.boundingBox())!;
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height / 2);
  const detail = page.getByTestId('round-detail');
  await detail.and(page.locator('[data-picked=true]')).waitFor();
  const picked = await detail.getAttribute('data-round');
  const wrote = await page.getByTestId('round-wrote').innerText();
  assert.match(wrote, /wrote .+/);
  // Monaco paints decorations on its next frame: waited for, as is the outline on the page.
  await page.locator('.view-lines .tok-spotlight').first().waitFor({ timeout: 5_000 });
  await page.getByTestId('spotlight').waitFor({ timeout: 5_000 });
  // Hovering another round shows it; leaving the timeline goes back to the picked one.
  await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
  assert.notEqual(await detail.getAttribute('data-round'), picked);
  await page.mouse.move(box.x + box.width / 2, box.y - 200);
  await detail.and(page.locator(`[data-round="${picked}"]`)).waitFor();
  assert.equal(await detail.getAttribute('data-picked'), 'true');
  assert.equal(await page.getByTestId('round-wrote').innerText(), wrote);
  assert.deepEqual(errors, []);
  await page.close();
});

test('choosing a page brings its text into view, and the export separates the pages', async () => {
  const { page, errors } = await decodedDocument();
  const pageThree = page.locator('.view-line', { hasText: '<!-- page 3 -->' });
  assert.equal(await pageThree.count(), 0, 'the editor starts at the first page');
  await page.locator('.thumb').nth(2).click();
  await pageThree.waitFor({ timeout: 5_000 });
  assert.equal(await pageNumber(page), '3 / 3');
  const { exported } = await exportAndDraft(page);
  const breaks = [...exported.matchAll(/\n\n---\n\n<!-- page (\d) -->\n\n/g)].map((m) => m[1]);
  assert.deepEqual(breaks, ['2', '3']);
  assert.equal(exported.split('# Quarterly Report on Reading Speed').length - 1, 3, 'each page\'s text once');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the statistics explain themselves, and Escape closes the settings and the model picker', async () => {
  const { page, errors } = await decodedDocument();
  const speed = page.getByTestId('stat-speedup');
  assert.match(await speed.locator('.stat-value').innerText(), /^\d+\.\d\d×$/, 'the speed against AR shows without an AR decode');
  assert.match((await speed.getAttribute('title'))!, /Estimated by the engine on this machine/);
  const visual = page.getByTestId('stat-visual');
  assert.match(await visual.locator('.stat-value').innerText(), /^\d+\.\d%$/);
  assert.match((await visual.getAttribute('title'))!, /Fixation prunes/);

  await page.getByTestId('open-settings').click();
  assert.match(await page.getByTestId('fixation-explained').innerText(), /Fixation watches: .* prunes nothing/);
  await page.keyboard.press('Escape');
  await page.getByTestId('settings').waitFor({ state: 'detached' });
  await page.getByTestId('engine-status').click();
  await page.getByTestId('model-picker').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('model-picker').waitFor({ state: 'detached' });
  assert.equal(await page.locator('[data-testid=progress][data-phase=done]').count(), 1);
  assert.deepEqual(errors, []);
  await page.close();
});
