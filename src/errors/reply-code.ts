/** A Redis reply's error code (`OOM`, `READONLY`, `LOADING`: the reply's first word, as Redis defines it), if it is one. */
export function replyCode(err: unknown): string | undefined {
  if (!(err instanceof Error) || err.name !== 'ReplyError') return undefined;
  return /^[A-Z]+/.exec(err.message)?.[0];
}
