import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

// The project's own eslint.config.js, on snippets that live nowhere on disk (a default project types them).
const root = fileURLToPath(new URL('../../', import.meta.url));
const kit = createRequire(`${root}tools/lint/package.json`);

interface Message {
  ruleId: string | null;
  message: string;
}
interface Linter {
  lintText(code: string, options: { filePath: string }): Promise<Array<{ messages: Message[] }>>;
}

let eslint: Linter;
beforeAll(async () => {
  // A fresh clone: `npm test` alone installs the kit as `npm run lint` would.
  const { ensureLintKit } = (await import(`${root}scripts/lint-kit.mjs`)) as { ensureLintKit: (root: string) => boolean };
  if (!ensureLintKit(root)) throw new Error('the lint kit could not be installed (npm ci --prefix tools/lint)');
  const { ESLint } = kit('eslint') as { ESLint: new (options: object) => Linter };
  eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: {
        parserOptions: { project: false, projectService: { allowDefaultProject: ['*/lint-probe/*.ts'], defaultProject: 'tsconfig.json' } },
      },
    },
  });
}, 120_000);

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

const asyncWork = 'async function work(): Promise<number> {\n  return 1;\n}\n';

describe('the lint rules', () => {
  describe('on a promise nobody waits for', () => {
    it('reports a floating promise', async () => {
      expect(await problems('src/lint-probe/a.ts', `${asyncWork}export function go(): void {\n  work();\n}\n`)).toEqual([
        '@typescript-eslint/no-floating-promises',
      ]);
    });

    it('reports an async callback where a void one is expected', async () => {
      const code = `${asyncWork}export function go(): void {\n  setInterval(async () => {\n    await work();\n  }, 10);\n}\n`;
      expect(await problems('src/lint-probe/b.ts', code)).toEqual(['@typescript-eslint/no-misused-promises']);
    });

    it('accepts one that is awaited, or voided on purpose', async () => {
      const code = `${asyncWork}export async function go(): Promise<void> {\n  await work();\n  void work();\n}\n`;
      expect(await problems('src/lint-probe/c.ts', code)).toEqual([]);
    });
  });

  describe('on a decision by message text', () => {
    const decisions = [
      "err.message.startsWith('[BAD_RECORD]')",
      "err.message.includes('timeout')",
      "err.message.toLowerCase().includes('timeout')",
      '/^\\[BAD_RECORD\\]/.test(err.message)',
      "err.message === 'gone'",
    ];
    it.each(decisions)('reports %s', async (decision) => {
      const code = `export function bad(err: Error): boolean {\n  return Boolean(${decision});\n}\n`;
      expect(await problems('jobs/lint-probe/d.ts', code)).toEqual(['no-restricted-syntax']);
    });

    it("accepts it in the classifier, the one place that reads the service's msg", async () => {
      const code = "export function bad(err: { msg: string }): boolean {\n  return err.msg.startsWith('Order');\n}\n";
      expect(await problems('src/client/answers/classify.ts', code)).toEqual([]);
    });

    it('accepts a decision by code', async () => {
      const code = "export function ok(err: { code: string }): boolean {\n  return err.code === 'BAD_RECORD';\n}\n";
      expect(await problems('src/lint-probe/e.ts', code)).toEqual([]);
    });
  });

  describe('on the rest of the style', () => {
    it('reports export * and a line over the width', async () => {
      const code = `export * from './a.js';\nexport const long = '${'x'.repeat(140)}';\n`;
      expect(await problems('config/lint-probe/f.ts', code)).toEqual(['no-restricted-syntax', 'max-len']);
    });

    it('reports a line of prose over the width that holds a URL somewhere', async () => {
      const prose = `the store's origin, https://{store}.myshopify.com (not the shop's domain), ${'and more words '.repeat(8)}`;
      const code = `export const hint =\n  "${prose}";\n// See https://shopify.dev/docs/api for ${'the rest of the sentence '.repeat(5)}\nexport const n = 1;\n`;
      expect(await problems('src/lint-probe/g.ts', code)).toEqual(['max-len', 'max-len']);
    });

    it('accepts a line over the width that is one URL alone, in a comment or a string', async () => {
      const url = `https://example.com/${'a-long-path/'.repeat(14)}`;
      const code = `// ${url}\nexport const where = [\n  '${url}',\n];\n`;
      expect(await problems('src/lint-probe/h.ts', code)).toEqual([]);
    });
  });
});
