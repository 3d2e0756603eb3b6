import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docPathProblems } from '../helpers/doc-links.js';
import type { Page } from '../helpers/docs-drift.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** README.md and every .md under docs/ (the runbooks too). */
function repoDocs(): Page[] {
  const docs = (readdirSync(join(root, 'docs'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f.split(sep).join('/')}`)
    .sort();
  return ['README.md', ...docs].map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
}

/** A made-up page at `file`, read against this checkout. */
const sample = (text: string, file = 'docs/sample.md') => docPathProblems([{ file, text }], root);

describe('the docs (README.md, docs/**)', () => {
  it('link and name only files of the repository', () => {
    expect(docPathProblems(repoDocs(), root)).toEqual([]);
  });

  it('hold no merge conflict left behind', () => {
    const marked = repoDocs().flatMap((p) =>
      p.text.split('\n').flatMap((line, i) => (/^(<{7}|>{7}) |^={7}$/.test(line) ? [`${p.file}:${i + 1}: ${line}`] : [])),
    );
    expect(marked).toEqual([]);
  });
});

describe('the docs path reader', () => {
  describe('when a page links a file the repository lacks', () => {
    it('names the file, the line and the link', () => {
      expect(sample('Intro.\n\nSee [the feed](upstream-feed.md) and [push](push.md#answers).')).toEqual([
        expect.stringMatching(/^docs\/sample\.md:3: `upstream-feed\.md` no such file or folder in the repository; link the page/),
      ]);
    });

    it("resolves a link from the page's folder, as a viewer does", () => {
      expect(sample('[push](push.md) [ok](../push.md)', 'docs/runbooks/sample.md')).toEqual([
        expect.stringMatching(/^docs\/runbooks\/sample\.md:1: `push\.md` no such file/),
      ]);
    });
  });

  describe('when a page points outside the repository', () => {
    it('catches a link, a code span and prose going up past the root', () => {
      const text = '[spec](../../shared/service-spec.md)\n\nRead `../shared` first.\n\nOr ../../interface.md.';
      const problems = sample(text, 'README.md');
      expect(problems).toEqual([
        expect.stringMatching(/^README\.md:1: `\.\.\/\.\.\/shared\/service-spec\.md` points outside the repository/),
        expect.stringMatching(/^README\.md:3: `\.\.\/shared` points outside the repository/),
        expect.stringMatching(/^README\.md:5: `\.\.\/\.\.\/interface\.md` points outside the repository/),
      ]);
    });
  });

  describe('when a page names a path in code or prose', () => {
    it('catches a Markdown file or a path under a folder of the repository that does not exist', () => {
      const text = 'The contract: `shared/interface.md`, `service-behaviors.md`; the client: src/client/nowhere.ts.';
      expect(sample(text).map((p) => p.slice(0, p.indexOf(' ', p.indexOf('`'))))).toEqual([
        'docs/sample.md:1: `shared/interface.md`',
        'docs/sample.md:1: `service-behaviors.md`',
        'docs/sample.md:1: `src/client/nowhere.ts`',
      ]);
    });

    it('accepts paths that exist, from the root or the page, and what is not a path', () => {
      const text = [
        '`src/cli/program.ts:22`, `docs/push.md`, `records.md`, `jobs/<kind>/`, `/api/order`, `{prefix}:order:{id}`,',
        '`Main Warehouse / A-01`, `application/json`, `dist/src/bin/inventory-sync.js`, https://example.com/x.md, docs/boms.md.',
        '```sh',
        'cat ../shared/upstream-feed.md   # code blocks are examples, not links',
        '```',
      ].join('\n');
      expect(sample(text)).toEqual([]);
    });
  });
});
