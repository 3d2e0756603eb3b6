import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/** Where the browser tests leave their screenshots (test-results/, kept out of git): to be looked at. */
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

/** A screenshot of the page (whole) or of one part of it, as `name`.png; answers its path. Never an empty image. */
export async function screenshot(page: Page, name: string, part?: Locator): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  if (part) await part.screenshot({ path });
  else await page.screenshot({ path, fullPage: true });
  expect(statSync(path).size, path).toBeGreaterThan(5_000);
  return path;
}

/** The computed style of the first element a selector finds. */
async function style(page: Page, selector: string, props: string[]): Promise<Record<string, string>> {
  return page
    .locator(selector)
    .first()
    .evaluate((el, names) => {
      const s = getComputedStyle(el);
      return Object.fromEntries(names.map((n) => [n, s.getPropertyValue(n)]));
    }, props);
}

/**
 * What the page's design promises, read from the browser's own layout: the house type, tables as cards, buttons that
 * are buttons (the primary one in the accent), state in colour, nothing wider than the window.
 */
export async function expectDesignedLook(page: Page, o: { badge?: string; primaryButton?: boolean } = {}): Promise<void> {
  expect((await style(page, 'body', ['font-family']))['font-family']).toMatch(/system-ui/);
  const table = await style(page, 'main table', ['border-top-left-radius', 'background-color']);
  expect(table['border-top-left-radius']).toBe('8px');
  expect(table['background-color']).toBe('rgb(255, 255, 255)');
  const head = await style(page, 'main th', ['text-transform', 'background-color']);
  expect(head['text-transform']).toBe('uppercase');
  if (o.primaryButton) {
    const button = await style(page, 'main button.primary', ['background-color', 'color', 'border-top-left-radius']);
    expect(button).toEqual({ 'background-color': 'rgb(36, 87, 197)', color: 'rgb(255, 255, 255)', 'border-top-left-radius': '6px' });
  }
  if (o.badge) {
    const tones: Record<string, [string, string]> = {
      bad: ['rgb(253, 232, 230)', 'rgb(179, 38, 30)'],
      ok: ['rgb(227, 245, 233)', 'rgb(23, 115, 58)'],
    };
    const badge = await style(page, `.badge.${o.badge}`, ['background-color', 'color']);
    expect([badge['background-color'], badge.color]).toEqual(tones[o.badge]);
  }
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, 'nothing wider than the window').toBeLessThanOrEqual(0);
}
