import { Writable } from 'node:stream';
import type { OutStream } from '../../src/app/cli-io.js';

/**
 * An output stream that keeps what is written, as a terminal (with the cursor methods progress bars use) or not.
 */
export function captureOut(isTTY: boolean): { stream: OutStream; text: () => string; lines: () => string[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  }) as OutStream;
  stream.isTTY = isTTY;
  if (isTTY) Object.assign(stream, { columns: 100, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return { stream, text: () => text, lines: () => text.split('\n').filter(Boolean) };
}
