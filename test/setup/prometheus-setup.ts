import type { TestProject } from 'vitest/node';
import { requirePrerequisites } from './prerequisites.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** promtool and the Prometheus server the deploy/ tests run (on PATH, or Debian's `prometheus` package). */
    promtoolPath: string;
    prometheusPath: string;
  }
}

/** The `deploy` project: promtool and a Prometheus server, besides Redis (its real-server test scrapes a worker). */
export default async function setup(project: TestProject) {
  const found = await requirePrerequisites(['redis', 'prometheus']);
  project.provide('promtoolPath', found.promtool!);
  project.provide('prometheusPath', found.prometheus!);
}
