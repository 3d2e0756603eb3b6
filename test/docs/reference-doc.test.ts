import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { referenceDoc } from '../../src/cli/reference-doc.js';
import { programKinds } from '../../jobs/kinds.js';
import { programSurface } from '../helpers/program-surface.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));

describe('docs/reference.md', () => {
  it('is what `npm run docs:reference` writes from the program, its settings and the kinds', () => {
    const committed = readFileSync(join(root, 'docs/reference.md'), 'utf8');
    // On a difference: run `npm run docs:reference` and commit docs/reference.md.
    expect(committed).toBe(referenceDoc(programSurface(root).program, programKinds));
  });

  describe('when the program gains a command, a flag or a setting', () => {
    it('lists the command with its arguments, its flags and the setting with its default', () => {
      const program = new Command('inventory-sync');
      program
        .command('frob')
        .argument('<key>')
        .description('frobs a key')
        .option('--hard', 'frob hard')
        .option('--times <n>', 'how often', '3');
      const doc = referenceDoc(program, [
        { settings: { FROB_SECONDS: { rule: undefined as never, default: 7, doc: 'Seconds | frobs.' } } },
      ]);
      expect(doc).toContain('| `frob <key>` | frobs a key |');
      expect(doc).toContain('| `--times <n>` | how often | `3` |');
      expect(doc).toContain('| `FROB_SECONDS` | Seconds \\| frobs. | `7` |');
      expect(doc).toContain('| `REDIS_URL` | ');
    });
  });
});
