import cliProgress from 'cli-progress';
import type { OutStream } from '../app/cli-io.js';

export interface Progress {
  /** `done` of `total` (total may grow as more work is found); `detail` is a short tail such as "3 failed". */
  update(done: number, total: number, detail?: string): void;
  stop(): void;
}

/** How often plain progress lines are written when the output is not a terminal, in ms. */
const PLAIN_EVERY_MS = 2000;

/** A progress bar on a terminal; plain lines ("title: 40/120 detail") at most every 2 s otherwise. */
export function createProgress(stream: OutStream, title: string, o: { enabled?: boolean } = {}): Progress {
  if (o.enabled === false) return { update: () => undefined, stop: () => undefined };
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${title} [{bar}] {value}/{total} {detail}`,
        stream: stream as NodeJS.WriteStream,
        hideCursor: true,
        clearOnComplete: false,
        fps: 10,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total, detail = '') {
        if (!started) {
          bar.start(Math.max(total, 1), done, { detail });
          started = true;
        } else {
          bar.setTotal(Math.max(total, 1));
          bar.update(done, { detail });
        }
      },
      stop: () => (started ? bar.stop() : undefined),
    };
  }
  let last = 0;
  let lastLine = '';
  let pending = '';
  const write = (line: string) => {
    stream.write(`${line}\n`);
    lastLine = line;
    last = Date.now();
  };
  return {
    update(done, total, detail = '') {
      const line = `${title}: ${done}/${total}${detail ? ` ${detail}` : ''}`;
      if (line === lastLine) return;
      pending = line;
      if (Date.now() - last >= PLAIN_EVERY_MS) write(line);
    },
    stop() {
      if (pending && pending !== lastLine) write(pending);
    },
  };
}
