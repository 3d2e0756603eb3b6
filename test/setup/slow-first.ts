import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Each file's seconds in a whole run (test/setup/file-seconds.json, written by scripts/test-file-seconds.mjs from
 * vitest's JSON report). A file missing from it (new since) counts as NEW_FILE_SECONDS.
 */
const SECONDS: Record<string, number> = JSON.parse(readFileSync(new URL('./file-seconds.json', import.meta.url), 'utf8'));
const NEW_FILE_SECONDS = 5;

/**
 * The longest files first, whatever their project: each worker takes the next file when it is free, so the run ends on
 * the shortest files on every worker at once (longest-first list scheduling). A clean clone has no timings cached, and
 * vitest's own order (by file size) put files of 15 to 20 s that are small on disk (the terminal's output, the full
 * Redis) at the end, with one or two workers idle beside them; and the small projects (browser, cluster, tls, sentinel)
 * ran first, one file at a time on a fresh worker, while the longest files of the main project waited behind them.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds = (f: TestSpecification) => {
      const path = Object.keys(SECONDS).find((p) => f.moduleId.endsWith(`/${p}`));
      return path === undefined ? NEW_FILE_SECONDS : SECONDS[path]!;
    };
    return sorted
      .map((f, i) => ({ f, s: seconds(f), i }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map((x) => x.f);
  }
}
