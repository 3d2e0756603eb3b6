import type { TestProject } from 'vitest/node';
import { requirePrerequisites } from './prerequisites.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Chromium the dashboard's browser test drives (CHROMIUM_PATH, the usual places, or Debian's package). */
    chromiumPath: string;
  }
}

/** The `browser` project: a Chromium to drive, besides Redis. */
export default async function setup(project: TestProject) {
  const found = await requirePrerequisites(['redis', 'chromium']);
  project.provide('chromiumPath', found.chromium!);
}
