import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files of a minute or more (CI's test-results/vitest.json, 2026-12-02), slowest first. A clean clone has no
 * timings cached, so vitest orders a project's files by size, and these started two thirds of the way through the
 * run, leaving the last minute to them alone; started first, the short files fill the workers around them.
 */
const SLOW = [
  'test/cli/worker-made-up-run.test.ts',
  'test/cli/shared-budget.test.ts',
  'test/cli/worker-one-call-down.test.ts',
  'test/cli/worker-outage.test.ts',
  'test/client/budget/start-windows.test.ts',
];

/** vitest's order (projects one after another, timings when cached), with each project's SLOW files at its front. */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const projects = [...new Set(sorted.map((f) => f.project.name))];
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
