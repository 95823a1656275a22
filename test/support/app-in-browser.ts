// What every browser end-to-end suite starts from: the real app served by `npm start`'s browser fallback,
// and Debian's Chromium to look at it.
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type RunningApp } from './app-server';
import { launchChromium } from './browser';

/** Screenshots and other test artifacts. */
export const ARTIFACTS = 'test-results/e2e';

export interface AppInBrowser {
  app: RunningApp;
  browser: Browser;
  close(): Promise<void>;
}

export async function openAppInBrowser(): Promise<AppInBrowser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const app = await startApp();
  try {
    const browser = await launchChromium();
    return { app, browser, close: async () => { await browser.close(); await app.stop(); } };
  } catch (err) {
    await app.stop();
    throw err;
  }
}

/**
 * The app and Chromium for one test file: started before its first test, closed after its last. Call it at
 * the top level of the file; the function it returns gives them inside tests.
 */
export function appInBrowserForFile(): () => AppInBrowser {
  let session: AppInBrowser | undefined;
  before(async () => {
    session = await openAppInBrowser();
  });
  after(async () => {
    await session?.close();
  });
  return () => {
    if (!session) throw new Error('the app is not running: starting it failed before the tests');
    return session;
  };
}

/** A new 1440 x 900 page on the app's welcome screen, and the page errors it raises from then on. */
export async function openWelcome({ app, browser }: AppInBrowser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(app.url);
  await page.getByTestId('welcome').waitFor();
  return { page, errors };
}

/**
 * Types `text` at the end of the editor, lets the draft autosave, reloads, opens the sample again and waits
 * until the edit is back on screen (Monaco renders only the visible lines, so it goes to the end first).
 */
export async function appendEditAndReload(page: Page, text: string): Promise<void> {
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(`\n\n${text}`);
  await page.waitForTimeout(800);
  await page.reload();
  await page.getByTestId('try-sample').click();
  await page.getByTestId('workspace').waitFor();
  await page.locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('Control+End');
  await page.locator('.view-lines').filter({ hasText: text }).waitFor({ timeout: 20_000 });
}

/** The draft the editor last autosaved (with a decode under way, its text so far), or null when none is saved. */
export async function savedDraft(page: Page): Promise<{ text: string; running: { text: string } | null } | null> {
  const saved = await page.evaluate(() => Object.entries(localStorage).find(([k]) => k.startsWith('saccade.draft.'))?.[1]);
  return saved ? JSON.parse(saved) as { text: string; running: { text: string } | null } : null;
}

/** Clicks "Decode again", confirming over edited text when the app asks. */
export async function decodeAgain(page: Page): Promise<void> {
  await page.getByTestId('decode').click();
  const confirm = page.getByTestId('decode-again-confirm');
  const asked = await confirm.waitFor({ timeout: 2_000 }).then(() => true, () => false);
  if (asked) await confirm.click();
}

/** Exports through the UI; returns the downloaded file and the autosaved draft's text. */
export async function exportAndDraft(page: Page): Promise<{ exported: string; draft: string }> {
  const download = page.waitForEvent('download');
  await page.getByTestId('export').click();
  const exported = readFileSync((await (await download).path())!, 'utf8');
  return { exported, draft: (await savedDraft(page))!.text };
}
