import { streamOfIntakeQueue } from '../queue/intake-queue.js';
import type { RunProgress } from '../app/runtime.js';
import type { CliIo } from '../app/cli-io.js';
import { createProgress } from './progress.js';
import { plural } from '../ops/state-words.js';

/** Turns runtime progress events into a progress bar (terminal) or plain lines. Disabled with --json. */
export function runProgress(io: CliIo, enabled: boolean) {
  const bar = createProgress(io.stdout, 'processing', { enabled });
  let most = 0;
  let lastImportLine = 0;
  return {
    onProgress(p: RunProgress) {
      if (!enabled) return;
      if (p.phase === 'pulled') {
        io.stdout.write(
          `pulled ${p.stream}: ${p.result.queued} new, ${p.result.duplicates} re-delivered, ${p.result.invalid} invalid` +
            `${p.result.locked ? ' (another process was pulling it)' : ''}\n`,
        );
      } else if (p.phase === 'imported') {
        if (io.stdout.isTTY) io.stdout.write(`\rimported ${plural(p.progress.records, 'record')} of ${p.stream}`);
        else if (Date.now() - lastImportLine >= 2000) {
          io.stdout.write(`imported ${plural(p.progress.records, 'record')} of ${p.stream}\n`);
          lastImportLine = Date.now();
        }
      } else {
        // Import batches are counted apart: each becomes up to 1,000 jobs, which then count as pending.
        let pending = 0;
        let batches = 0;
        for (const [queue, n] of Object.entries(p.pending)) {
          if (streamOfIntakeQueue(queue)) batches += n;
          else pending += n;
        }
        most = Math.max(most, pending);
        bar.update(
          most - pending,
          most,
          `${pending} pending${batches ? `, ${batches} import batch${batches === 1 ? '' : 'es'} to queue` : ''}`,
        );
      }
    },
    stop() {
      bar.stop();
    },
  };
}
