// Prints vitest's JSON report as one plain closing line: "tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';
const r = JSON.parse(readFileSync(process.argv[2] ?? 'test-results/vitest.json', 'utf8'));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
