const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` answers true, looking every `everyMs`; throws when `timeoutMs` pass first. Answers the ms waited. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  o: { everyMs?: number; what?: string } = {},
): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`${o.what ?? 'condition'} not met within ${timeoutMs} ms`);
    await sleep(o.everyMs ?? 25);
  }
  return Date.now() - start;
}
