import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium, headless, as the dashboard's browser tests drive it (playwright-core ships no browser). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
