import { Readable } from 'node:stream';
import { programKinds } from '../../jobs/kinds.js';
import { runCli } from '../../src/cli/program.js';
import type { Kind } from '../../src/kinds/kind.js';
import { captureOut } from '../helpers/out-stream.js';

/** A command line run in this process (no child, no tsx start-up), with the real kinds and its own output streams. */
export async function cliInProcess(
  argv: string[],
  env: Record<string, string>,
  o: { kinds?: readonly Kind[]; tty?: boolean; dotenv?: ReadonlySet<string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [out, err] = [captureOut(o.tty ?? false), captureOut(o.tty ?? false)];
  const io = {
    env,
    stdout: out.stream,
    stderr: err.stream,
    stdin: Readable.from([]),
    stop: new AbortController().signal,
    ...(o.dotenv ? { dotenv: o.dotenv } : {}),
  };
  const code = await runCli(argv, io, o.kinds ?? programKinds);
  return { code, stdout: out.text(), stderr: err.text() };
}
