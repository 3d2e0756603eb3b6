import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingsOf } from '../../config/kind-setting.js';
import { programKinds } from '../../jobs/kinds.js';
import type { Kind } from '../../src/kinds/kind.js';
import { stockAdjustmentKind } from '../jobs/fifth-kind/stock-adjustment-kind.js';
import { shelfLabelKind } from '../jobs/fourth-kind/shelf-label-kind.js';
import { cyclesOf, importGraph, importsOf, root, sourceFiles } from './import-graph.js';
import { layerViolations, parseLayerTable, rowOf, type Exception } from './layer-rules.js';

/** The entry point: the only code that imports the list of kinds (jobs/kinds.ts) and hands it on. */
const ENTRY = ['src/bin/'];
/** The demo's bundled feed is data for the program's streams, by name. */
const DEMO_DATA = ['src/demo/demo-feed.ts'];
const everywhere = sourceFiles(['src', 'config']);
const engine = everywhere.filter((f) => !ENTRY.some((r) => f.startsWith(r)));
/** The program's kinds and the tests' (each a folder and a line in a list, nothing else). */
const kinds: readonly Kind[] = [...programKinds, shelfLabelKind, stockAdjustmentKind];

/** Every line of the files the pattern matches, as `file:line: text`. */
function offendingLines(files: readonly string[], pattern: RegExp): string[] {
  return files.flatMap((f) =>
    readFileSync(join(root, f), 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
  );
}

const escape = (s: string) => s.replace(/[-.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * How code would build a key of the pattern (`{prefix}:order:{orderId}`): its first fixed segment after an
 * interpolation (`${prefix}:order:`), or for a lock (`{prefix}:lock:location:{location}`) the lock's name (`lock('location'`).
 */
function keyBuilt(pattern: string): RegExp {
  const words = pattern.replace(/^\{prefix\}:/, '').split(':');
  if (words[0] === 'lock' && words[1]) return new RegExp(`lock\\(\\s*['"\`]${escape(words[1])}['"\`]`);
  return new RegExp(`\\}:${escape(words[0]!)}(?=[:'"\`*])`);
}

describe('the engine under the kinds', () => {
  it('reads files to check', () => {
    expect(engine.length).toBeGreaterThan(100);
    expect(engine).toContain('src/queue/job-runner.ts');
  });

  it('imports nothing from jobs/ outside the entry point (src/bin): src/app and the demo take the list too', () => {
    const offending = engine.flatMap((f) =>
      importsOf(f)
        .filter((t) => t.startsWith('jobs/'))
        .map((t) => `${f} -> ${t}`),
    );
    expect(offending).toEqual([]);
  });

  it("names no stream: no stream name is written in src/ or config/ outside the entry point and the demo's data", () => {
    const quoted = new RegExp(`['"\`](${kinds.map((k) => escape(k.stream)).join('|')})['"\`]`);
    expect(
      offendingLines(
        engine.filter((f) => !DEMO_DATA.includes(f)),
        quoted,
      ),
    ).toEqual([]);
  });

  it("names no kind's setting: no variable a kind declares is written anywhere in src/ or config/", () => {
    const names = settingsOf(kinds).map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['ORDER_POLL_SECONDS', 'STOCK_SYNC_CRON', 'ADJUSTMENT_POLL_SECONDS']));
    expect(offendingLines(everywhere, new RegExp(`\\b(${names.join('|')})\\b`))).toEqual([]);
  });

  it("builds no kind's Redis key: none of the keys a kind declares is made anywhere in src/ or config/", () => {
    const patterns = kinds.flatMap((k) => k.redisKeys ?? []);
    expect(patterns).toContain('{prefix}:order:{orderId}');
    expect(patterns.flatMap((p) => offendingLines(everywhere, keyBuilt(p)))).toEqual([]);
  });

  it('finds a key built by hand when there is one', () => {
    expect(keyBuilt('{prefix}:order:{orderId}').test('order: (id: string) => `${prefix}:order:${id}`,')).toBe(true);
    expect(keyBuilt('{prefix}:stock:*').test('const p = `${keys.prefix}:stock`;')).toBe(true);
    expect(keyBuilt('{prefix}:lock:location:{location}').test("keys.lock('location', url)")).toBe(true);
    expect(keyBuilt('{prefix}:order:{orderId}').test("client.listCollection('order')")).toBe(false);
  });
});

describe('the import graph of src/, jobs/ and config/', () => {
  it('has no cycle (type-only imports count)', () => {
    expect(cyclesOf(importGraph(['src', 'jobs', 'config']))).toEqual([]);
  });

  it('has none either with the benchmarks, scripts and tests that import it', () => {
    expect(cyclesOf(importGraph(['src', 'jobs', 'config', 'bench', 'scripts', 'test']))).toEqual([]);
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

describe("the layering: docs/architecture.md's folders table is the rule", () => {
  const rows = parseLayerTable(readFileSync(join(root, 'docs/architecture.md'), 'utf8'));
  /** The demo is a command: the `demo` command imports its run lazily, the one import that runs back up. */
  const exceptions: Exception[] = [['src/cli/commands/demo-command.ts', 'src/demo/run-demo.ts']];

  it('reads the table: a row per folder, with what it may import', () => {
    expect(rowOf(rows, 'src/queue/job-runner.ts')?.row.mayImport).toEqual(expect.arrayContaining(['src/records/', 'src/client/']));
    expect(rowOf(rows, 'src/queue/job-runner.ts')?.row.mayImport).not.toContain('src/kinds/');
    expect(rowOf(rows, 'src/ops/check/run-check.ts')?.folder).toBe('src/ops/');
    expect(rowOf(rows, 'jobs/orders/order-kind.ts')?.folder).toBe('jobs/orders/');
    expect(rowOf(rows, 'config/read-config.ts')?.row.mayImport).toEqual(expect.arrayContaining(['src/log/', 'src/errors/']));
  });

  it('holds for every import of src/, jobs/ and config/ (static, type-only and dynamic), the named exception aside', () => {
    const graph = importGraph(['src', 'jobs', 'config']);
    expect(graph.size).toBeGreaterThan(300);
    expect(layerViolations(graph, rows, exceptions)).toEqual([]);
  });

  it("names the demo's lazy import because it is there", () => {
    expect(importsOf(exceptions[0]![0])).toContain(exceptions[0]![1]);
  });

  it('reports an import that runs back up, naming file -> target and the rule broken', () => {
    const table = [
      '## Folders: what each owns and what it may import',
      '',
      '| folder | owns | may import |',
      '|---|---|---|',
      '| `src/log/` | the shared leaves: the logger | the shared leaves |',
      '| `src/queue/` | the runner | `src/records/`, the shared leaves |',
      '| `src/kinds/` | the kind | `src/queue/`, `src/records/` |',
      '| `test/` | tests | anything |',
    ].join('\n');
    const graph = new Map([
      ['src/queue/job-runner.ts', ['src/records/records.ts', 'src/log/logger.ts', 'src/queue/job-context.ts', 'src/kinds/kind.ts']],
      ['src/kinds/kind.ts', ['src/queue/runner-kind.ts']],
      ['src/odd/loose.ts', ['src/log/logger.ts']],
      ['test/any.test.ts', ['src/kinds/kind.ts']],
    ]);
    expect(layerViolations(graph, parseLayerTable(table))).toEqual([
      'src/queue/job-runner.ts -> src/kinds/kind.ts (src/queue/ may import: src/records/, src/log/)',
      'src/odd/loose.ts -> src/log/logger.ts (no row of the table covers src/odd/loose.ts)',
    ]);
    expect(layerViolations(graph, parseLayerTable(table), [['src/queue/job-runner.ts', 'src/kinds/kind.ts']])).toHaveLength(1);
  });
});
