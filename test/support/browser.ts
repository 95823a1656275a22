// Real Chromium (Debian's), driven by playwright-core: nothing downloads a browser.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.SACCADE_CHROMIUM ?? '/usr/bin/chromium';

/** `extraArgs`: further command-line switches (a test's host-resolver rules). */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install it (Debian: apt-get install chromium) or set SACCADE_CHROMIUM.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}
