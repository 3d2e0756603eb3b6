/**
 * Writes docs/reference.md from the program: its commands and flags (commander), its settings (config/schema.ts and
 * config/setting-docs.ts) and the kinds' own settings. `npm run docs:reference`; test/docs checks the file is current.
 */
import { writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../src/cli/program.js';
import { referenceDoc } from '../src/cli/reference-doc.js';
import { programKinds } from '../jobs/kinds.js';

const quiet = new PassThrough();
const io = { env: {}, stdout: quiet, stderr: quiet, stdin: new PassThrough(), stop: new AbortController().signal };
const file = fileURLToPath(new URL('../docs/reference.md', import.meta.url));
writeFileSync(
  file,
  referenceDoc(
    buildProgram(io, () => undefined, programKinds),
    programKinds,
  ),
);
console.log(`wrote ${file}`);
