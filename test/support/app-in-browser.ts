// What every browser end-to-end suite starts from: the real app served by `npm start`'s browser fallback,
// and Debian's Chromium to look at it.
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
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
