import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STREAMS } from '../../jobs/streams.js';
import { cyclesOf, importGraph, importsOf, root, sourceFiles } from './import-graph.js';

/** The composition root: the only code that hands the list of kinds (jobs/streams.ts) to the engine. */
const COMPOSITION_ROOT = ['src/app/', 'src/bin/', 'src/demo/'];
const engine = sourceFiles(['src', 'config']).filter((f) => !COMPOSITION_ROOT.some((r) => f.startsWith(r)));

describe('the engine under the kinds', () => {
  it('reads files to check', () => {
    expect(engine.length).toBeGreaterThan(100);
    expect(engine).toContain('src/queue/job-runner.ts');
  });

  it('imports nothing from jobs/ outside the composition root (src/app, src/bin, src/demo)', () => {
    const offending = engine.flatMap((f) =>
      importsOf(f)
        .filter((t) => t.startsWith('jobs/'))
        .map((t) => `${f} -> ${t}`),
    );
    expect(offending).toEqual([]);
  });

  it('names no stream: no stream name is written in src/ or config/ outside the composition root', () => {
    const quoted = new RegExp(`['"\`](${STREAMS.map((s) => s.replace(/[-]/g, '\\-')).join('|')})['"\`]`);
    const offending = engine.flatMap((f) =>
      readFileSync(join(root, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (quoted.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offending).toEqual([]);
  });
});

describe('the import graph of src/, jobs/ and config/', () => {
  it('has no cycle (type-only imports count)', () => {
    expect(cyclesOf(importGraph(['src', 'jobs', 'config']))).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});

describe('the feed and the records', () => {
  it('reads records without the queue: the feed readers import nothing from src/queue', () => {
    for (const f of ['src/feed/page-reader.ts', 'src/feed/ndjson.ts'])
      expect(importsOf(f).filter((t) => t.startsWith('src/queue/'))).toEqual([]);
  });

  it('gives jobs/ the engine types without a worker: jobs/ imports nothing from src/queue/worker-pool.ts', () => {
    const offending = sourceFiles(['jobs']).filter((f) => importsOf(f).includes('src/queue/worker-pool.ts'));
    expect(offending).toEqual([]);
  });
});
