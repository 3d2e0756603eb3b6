#!/usr/bin/env node
// Lists the lines over the print width (.prettierrc.json) in src/ jobs/ config/, the ones Prettier cannot break
// (strings, comments, long regular expressions) to be broken by hand; exits 1 when there are any.
// Usage: node scripts/long-lines.mjs [dir...]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const width = JSON.parse(readFileSync(new URL('../.prettierrc.json', import.meta.url), 'utf8')).printWidth;
const dirs = process.argv.slice(2).length ? process.argv.slice(2) : ['src', 'jobs', 'config'];

function* tsFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* tsFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

let count = 0;
for (const dir of dirs) {
  for (const file of tsFiles(dir)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.length <= width) return;
        count += 1;
        console.log(`${file}:${i + 1}: ${line.length} > ${width}`);
      });
  }
}
console.log(`${count} line(s) over ${width} in ${dirs.join(' ')}`);
process.exit(count ? 1 : 0);
