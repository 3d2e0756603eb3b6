// ESLint (flat config) for the TypeScript in src/ jobs/ config/ test/ bench/. Run by `npm run lint` (scripts/lint.mjs).
// The kit lives in tools/lint with its own lock: typescript-eslint reads types through TypeScript's JS API, which
// TypeScript 7 (the project's compiler) does not have, so the linter alone runs on TypeScript 6.0.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const kit = createRequire(new URL('./tools/lint/package.json', import.meta.url));
const tseslint = kit('typescript-eslint');

/** The print width (.prettierrc.json): Prettier holds code to it, max-len the strings and comments it does not break. */
export const WIDTH = JSON.parse(readFileSync(new URL('./.prettierrc.json', import.meta.url), 'utf8')).printWidth;

const BY_CODE = "decide by the error's code (or class), never by its message text: see docs/service-client.md";
const TEXT = '/^(message|msg)$/';
const STRING_TESTS = '/^(startsWith|endsWith|includes|indexOf|match|matchAll|search|localeCompare)$/';

/** Deciding by an error's `message` (or the service's `msg`) text, in each form it takes. */
export const MESSAGE_TEXT_RULES = [
  // err.message.startsWith('[X]'), err.msg.includes('x'), err.message.match(/x/)
  `CallExpression[callee.property.name=${STRING_TESTS}][callee.object.property.name=${TEXT}]`,
  // err.message.toLowerCase().includes('x')
  `CallExpression[callee.property.name=${STRING_TESTS}][callee.object.callee.object.property.name=${TEXT}]`,
  // /x/.test(err.message), /x/.exec(err.msg)
  `CallExpression[callee.property.name=/^(test|exec)$/][arguments.0.property.name=${TEXT}]`,
  // err.message === 'x'
  `BinaryExpression[operator=/^[!=]==?$/][left.property.name=${TEXT}]`,
  `BinaryExpression[operator=/^[!=]==?$/][right.property.name=${TEXT}]`,
  // switch (err.message)
  `SwitchStatement[discriminant.property.name=${TEXT}]`,
].map((selector) => ({ selector, message: `Deciding by message text: ${BY_CODE}.` }));

/** A line that is one URL and nothing else but its comment marker or its quotes: `// https://...`, `'https://...',`. */
export const URL_ALONE = String.raw`^\s*(?:(?://|/?\*+)\s*)?['"\x60]?[a-z][a-z\d+.-]*://\S+$`;

const NO_EXPORT_ALL = { selector: 'ExportAllDeclaration', message: 'No `export *`: export each name explicitly.' };

/**
 * Files allowed to read message text, each for a reason: the service's `msg` (the classifier, the one place), Redis's
 * error code (the first word of its reply: READONLY, NOSCRIPT; ioredis gives no other field), zod's wording of an
 * issue, rephrased for a reader (not a decision about the error), and where JSON.parse says the error is.
 */
export const READS_MESSAGE_TEXT = [
  'src/client/answers/classify.ts',
  'src/redis/errors.ts',
  'src/errors/reply-code.ts', // a Redis reply's code is the first word of its text (moved from src/redis/errors.ts)
  'src/redis/options.ts',
  'src/client/budget/budget-scripts.ts',
  'src/client/answers/shape.ts',
  'src/sandbox/validation.ts',
  'config/read-config.ts',
  'config/mapping-json.ts', // V8's JSON.parse gives the position of an error in its text only
];

const CODE = ['src/**/*.ts', 'jobs/**/*.ts', 'config/**/*.ts'];

export default [
  { ignores: ['**/node_modules/**', 'dist/**', 'tools/**', 'test-results/**', 'bench/out/**'] },
  {
    files: [...CODE, 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: ['./tsconfig.test.json', './src/dashboard/browser/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': ['error', NO_EXPORT_ALL],
    },
  },
  {
    files: [...CODE, 'bench/**/*.ts', 'scripts/**/*.ts'],
    ignores: READS_MESSAGE_TEXT,
    rules: { 'no-restricted-syntax': ['error', NO_EXPORT_ALL, ...MESSAGE_TEXT_RULES] },
  },
  {
    // Strings, template literals, comments and regular expressions count: break them by hand. A URL cannot be broken,
    // so a line that holds nothing but one (in a comment or a string) may be longer; not a line of prose that holds a
    // URL somewhere (max-len's own ignoreUrls let two such lines of 163 and 210 through).
    files: CODE,
    rules: { 'max-len': ['error', { code: WIDTH, ignorePattern: URL_ALONE }] },
  },
];
