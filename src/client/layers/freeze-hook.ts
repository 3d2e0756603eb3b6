/**
 * A test hook (test/cli/*-fenced-writes.test.ts): with ISYNC_TEST_FREEZE_AT set to a point of the write path and
 * ISYNC_TEST_FREEZE_CALL to a call (createShipment), the process stops itself (SIGSTOP) the first time one of its
 * writes of that call reaches that point; the test thaws it (SIGCONT) once its lease is long gone. Never set in
 * production; unset, it costs one comparison.
 *
 * The points: `before-check` (the fence not yet made), `after-check` (fenced, not yet sent), `in-flight` (sent, the
 * answer's head arrived, not yet read), `after-answer` (answered, the progress not yet written).
 */
export type FreezePoint = 'before-check' | 'after-check' | 'in-flight' | 'after-answer';

let frozen = false;

export function freezeAt(point: FreezePoint, call: string): void {
  if (frozen || process.env.ISYNC_TEST_FREEZE_AT !== point || process.env.ISYNC_TEST_FREEZE_CALL !== call) return;
  frozen = true;
  process.kill(process.pid, 'SIGSTOP');
}
