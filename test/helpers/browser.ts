import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

/** The Chromium the browser project's setup found (test/setup/chromium-setup.ts), headless, as the dashboard's browser tests drive it (playwright-core ships no browser). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: inject('chromiumPath'),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
