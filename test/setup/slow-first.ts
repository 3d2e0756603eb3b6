import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files of 35 s or more (test-results/vitest.json, 2026-12-06), slowest first. A clean clone has no timings
 * cached, so vitest orders a project's files by size, and these started two thirds of the way through the run, leaving
 * the last minute to them alone; started first, the short files fill the workers around them.
 */
const SLOW = [
  'test/cli/shared-budget.test.ts',
  'test/cli/worker-made-up-run.test.ts',
  'test/feed/due-set.test.ts',
  'test/cli/worker-one-call-down.test.ts',
  'test/cli/worker-outage.test.ts',
  'test/client/budget/start-windows.test.ts',
];

/**
 * vitest's order (projects one after another, timings when cached), with each project's SLOW files at its front, and
 * the project of the most files last: its many short files end the run on every worker at once. Before, the small
 * projects (tls, sentinel: a process each to start, and a Redis of their own) came after it and ended the run on one or
 * two workers alone, about 25 s of the 3 workers mostly idle (test-results/vitest.json, 2026-12-06).
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    if (sorted.length === 0) return sorted;
    const size = new Map<string, number>();
    for (const f of sorted) size.set(f.project.name, (size.get(f.project.name) ?? 0) + 1);
    const largest = [...size.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    const projects = [...size.keys()].filter((p) => p !== largest).concat(largest);
    const slowRank = (f: TestSpecification) => {
      const i = SLOW.findIndex((s) => f.moduleId.endsWith(s));
      return i < 0 ? SLOW.length : i;
    };
    const key = (f: TestSpecification, i: number) => [projects.indexOf(f.project.name), slowRank(f), i] as const;
    return sorted
      .map((f, i) => ({ f, k: key(f, i) }))
      .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.k[2] - b.k[2])
      .map((x) => x.f);
  }
}
