// Writes test/setup/file-seconds.json: each test file's seconds in the last whole run, by project ("main:test/..."),
// for the sequencer (test/setup/slow-first.ts) to start the longest files first on a clean clone too. It reads vitest's
// own results cache (node_modules/.vite/vitest/*/results.json, the durations vitest sorts by where a checkout has it).
// Run `npm test`, then this, after a change that makes a file much longer or shorter.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = 'node_modules/.vite/vitest';
const seconds = {};
for (const hash of readdirSync(dir)) {
  const { results } = JSON.parse(readFileSync(join(dir, hash, 'results.json'), 'utf8'));
  for (const [file, r] of results) if (file !== 'chaos:test/chaos/chaos-short.test.ts') seconds[file] = Math.round(r.duration / 100) / 10;
}
const sorted = Object.fromEntries(Object.entries(seconds).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
writeFileSync('test/setup/file-seconds.json', `${JSON.stringify(sorted, null, 2)}\n`);
const all = Object.values(sorted).reduce((a, b) => a + b, 0);
console.log(`test/setup/file-seconds.json: ${Object.keys(sorted).length} files, ${all.toFixed(0)} s in all`);
