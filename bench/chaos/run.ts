// `npm run chaos` (the full run) and `npm run chaos:short` (the CI run).
// Exit codes: 0 zero violations, 1 violations, 2 bad usage, 3 the run itself broke.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseChaosArgs, type ChaosOptions } from './chaos-options.js';
import { reportMarkdown, reportText } from './chaos-report.js';
import { runChaos } from './run-chaos.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
let options: ChaosOptions;
try {
  options = parseChaosArgs(argv);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}

// How the run works, appended under the generated tables of docs/chaos.md.
const notesFile = join(root, 'bench/chaos/chaos-notes.md');
// The command as a reader would rerun it: where the output goes does not change the run.
const shown = argv.filter(
  (a, i) => !['--log-dir', '--json', '--markdown'].includes(a) && !['--log-dir', '--json', '--markdown'].includes(argv[i - 1] ?? ''),
);
const command =
  shown[0] === '--short' && shown.length === 1 ? 'npm run chaos:short' : `npm run chaos${shown.length ? ` -- ${shown.join(' ')}` : ''}`;
try {
  const report = await runChaos(options, root, command, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`\n${reportText(report)}\n`);
  if (options.json) writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
  if (options.markdown) {
    const notes = existsSync(notesFile) ? `\n${readFileSync(notesFile, 'utf8')}` : '';
    writeFileSync(options.markdown, `${reportMarkdown(report)}${notes}`);
  }
  process.exit(report.violations === 0 ? 0 : 1);
} catch (err) {
  process.stderr.write(`chaos: the run could not complete: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(3);
}
