#!/usr/bin/env node
// Files and folders reached by following relative imports (static, type-only and dynamic) from an entry file.
// Usage: node scripts/import-path.mjs <entry.ts> [--list]   e.g. node scripts/import-path.mjs jobs/orders/order-sync.ts
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const [entry, flag] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node scripts/import-path.mjs <entry.ts> [--list]\n');
  process.exit(2);
}
const root = process.cwd();
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;
const seen = new Set();
const todo = [resolve(root, entry)];
while (todo.length) {
  const file = todo.pop();
  if (seen.has(file) || !existsSync(file)) continue;
  seen.add(file);
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
  }
}
const files = [...seen].map((f) => relative(root, f)).sort();
const folders = new Set(files.map((f) => dirname(f)));
if (flag === '--list') for (const f of files) process.stdout.write(`${f}\n`);
process.stdout.write(`${entry}: ${files.length} files in ${folders.size} folders\n`);
