import type { Page } from 'playwright-core';
import { COLORS } from '../../src/dashboard/browser/chart-format.js';

export { COLORS };

/** Where to count: the whole canvas, the plot area, or the gutters where the x (below) and y (left) axes are drawn. */
export type Region = 'all' | 'plot' | 'x-axis' | 'y-axis';

/**
 * Pixels of `color` (within a small tolerance, for anti-aliasing) that uPlot drew on the canvas of the chart
 * under `selector`; 0 when there is no canvas. What is on the canvas is what the operator sees.
 */
export function pixels(page: Page, selector: string, color: string, region: Region = 'all'): Promise<number> {
  return page.evaluate(
    ([selector, color, region]) => {
      const holder = document.querySelector(selector);
      const canvas = holder?.querySelector('canvas');
      const over = holder?.querySelector<HTMLElement>('.u-over');
      if (!canvas || !over) return 0;
      const ctx = canvas.getContext('2d');
      if (!ctx) return 0;
      const k = canvas.width / canvas.clientWidth;
      const plot = { x: over.offsetLeft * k, y: over.offsetTop * k, w: over.offsetWidth * k, h: over.offsetHeight * k };
      const box =
        region === 'plot'
          ? plot
          : region === 'x-axis'
            ? { x: plot.x, y: plot.y + plot.h + 1, w: plot.w, h: canvas.height - plot.y - plot.h - 1 }
            : region === 'y-axis'
              ? { x: 0, y: plot.y, w: plot.x - 1, h: plot.h }
              : { x: 0, y: 0, w: canvas.width, h: canvas.height };
      if (box.w < 1 || box.h < 1) return 0;
      const data = ctx.getImageData(Math.floor(box.x), Math.floor(box.y), Math.floor(box.w), Math.floor(box.h)).data;
      const want = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
        if (a > 200 && Math.abs(r - want[0]!) < 24 && Math.abs(g - want[1]!) < 24 && Math.abs(b - want[2]!) < 24) n++;
      }
      return n;
    },
    [selector, color, region] as const,
  );
}
