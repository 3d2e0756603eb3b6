import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { docsDrift, unnamedSettings, type Page } from '../helpers/docs-drift.js';
import { programSurface, type ProgramSurface } from '../helpers/program-surface.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** README.md and every .md under docs/ (the runbooks too), as the test reads them. */
function repoDocs(): Page[] {
  const docs = (readdirSync(join(root, 'docs'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f.split(sep).join('/')}`)
    .sort();
  return ['README.md', ...docs].map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
}

let surface: ProgramSurface;
beforeAll(() => {
  surface = programSurface(root);
});

const sample = (text: string) => docsDrift([{ file: 'sample.md', text }], surface);

describe('the docs (README.md, docs/**/*.md)', () => {
  it('name only commands, subcommands, npm scripts, flags and settings that the program has', () => {
    expect(docsDrift(repoDocs(), surface)).toEqual([]);
  });

  it('name every setting that the program has', () => {
    expect(unnamedSettings(repoDocs(), surface)).toEqual([]);
  });
});

describe('the docs reader', () => {
  describe('when a page names a command the program lacks', () => {
    it('names the file, the line and the commands there are', () => {
      const problems = sample('Run it:\n\n```sh\nnpx inventory-sync frobnicate --json\n```\n');
      expect(problems).toEqual([
        expect.stringMatching(/^sample\.md:4: `inventory-sync frobnicate`: no such command; the commands are worker, (receive, )?sync/),
      ]);
    });

    it('catches a subcommand the command lacks', () => {
      expect(sample('`inventory-sync jobs purge`')).toEqual([
        expect.stringMatching(/^sample\.md:1: `inventory-sync jobs purge`: no such subcommand; jobs has list, show, retry/),
      ]);
    });

    it('reads the first cell of a command table as a command line', () => {
      const table = '| command | what it does |\n|---|---|\n| `status --json` | fine |\n| `jobs list / purge <id>` | not fine |\n';
      expect(sample(table)).toEqual([expect.stringMatching(/^sample\.md:4: `inventory-sync jobs purge`/)]);
    });
  });

  describe('when a page names a flag the program lacks', () => {
    it('names the flag with its command and the flags the command has', () => {
      expect(sample('Then `inventory-sync jobs retry --all --stream orders`.')).toEqual([
        'sample.md:1: `--all`: `inventory-sync jobs retry` has no such flag (it has --all-failed --stream --json); name one it has',
      ]);
    });

    it('checks a flag alone against the command of its table row', () => {
      const table = '| command | what it does |\n|---|---|\n| `resume` | add `--force` to skip the checks; `--stream` picks one |\n';
      expect(sample(table)).toEqual([expect.stringMatching(/^sample\.md:3: `--force`: `inventory-sync resume` has no such flag/)]);
    });

    it('checks a command line written without the program name, when it starts with a command', () => {
      expect(sample('Then `reconcile --repiar`, `import --process` or `redis-server --sentinel`.')).toEqual([
        expect.stringMatching(/^sample\.md:1: `--repiar`: `inventory-sync reconcile` has no such flag/),
      ]);
    });

    it('checks a flag alone in prose against every command and script', () => {
      expect(sample('Add `--all-failed` or `--turbo`.')).toEqual([
        expect.stringMatching(/^sample\.md:1: `--turbo`: no command or npm script/),
      ]);
    });

    it("checks an npm script's name and the flags its own parser takes", () => {
      const text = '`npm run deploy`, `npm run bench -- --only orders --fast`, `npm run cli -- sync --once --dry-run --fast`';
      expect(sample(text)).toEqual([
        expect.stringMatching(/^sample\.md:1: `npm run deploy`: package.json has no such script/),
        'sample.md:1: `npm run bench -- --fast`: the script does not take this flag; name one it parses',
        expect.stringMatching(/^sample\.md:1: `--fast`: `inventory-sync sync` has no such flag/),
      ]);
    });
  });

  describe('when a page names an environment variable', () => {
    it('catches one the program does not read, written as a setting, ending like one or in a configuration table', () => {
      const text = [
        '```sh',
        'WIDGETS=on SYNC_WIDGETS_SINCE=2026-01-01 npx inventory-sync worker',
        '```',
        'Raise `ALERT_SNOOZE_SECONDS` when the alerts come too often.',
        '',
        '| variable | meaning |',
        '|---|---|',
        '| `WIDGETS` | widgets |',
      ].join('\n');
      expect(sample(text).map((p) => p.slice(0, p.indexOf(' is not')))).toEqual([
        'sample.md:2: `WIDGETS`',
        'sample.md:2: `SYNC_WIDGETS_SINCE`',
        'sample.md:4: `ALERT_SNOOZE_SECONDS`',
        'sample.md:8: `WIDGETS`',
      ]);
    });

    it('catches one exported, passed to docker or set in a compose file', () => {
      const text =
        '```sh\nexport WIDGET_MODE\ndocker run -e WIDGET_COUNT inventory-sync worker\n```\n```yaml\nenvironment:\n  WIDGET_SIZE: 3\n```\n';
      expect(sample(text).map((p) => p.slice(0, p.indexOf(' is not')))).toEqual([
        'sample.md:2: `WIDGET_MODE`',
        'sample.md:3: `WIDGET_COUNT`',
        'sample.md:7: `WIDGET_SIZE`',
      ]);
    });

    it('does not take failure codes, Redis replies, constants or header names for settings', () => {
      const text =
        'A `BAD_RECORD` fails, `OOM` and `READONLY` hold, `SERVICE_NO_ACCOUNT` and `FEED_UNAUTHORIZED` stop, `KEEP_MS` keeps, `X-RateLimit-Limit`.\n' +
        '```json\n{"level":50,"code":"ORDER_LOCKED"}\n```\n';
      expect(sample(text)).toEqual([]);
    });

    it('accepts the settings, their _FILE forms and what other programs read', () => {
      const text =
        '`REDIS_URL=redis://127.0.0.1:6379`, `INVENTORY_API_KEY_FILE`, `OTEL_SERVICE_NAME=isync`, `CHROMIUM_PATH=/usr/bin/chromium`';
      expect(sample(text)).toEqual([]);
    });
  });

  describe('when no page names a setting the program has', () => {
    it('names the setting and where to document it', () => {
      const all = [...surface.settings].filter((s) => s !== 'FEED_PAGE_SIZE').join(', ');
      expect(unnamedSettings([{ file: 'sample.md', text: all }], surface)).toEqual([
        expect.stringMatching(/^FEED_PAGE_SIZE \(config\/schema\.ts\) is named by no doc: add it to README\.md's "Configuration"/),
      ]);
    });
  });
});
