import { createHash, timingSafeEqual } from 'node:crypto';

/** Whether two strings are equal, in a time that tells nothing of either: equal-length digests are compared. */
export function sameSecret(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}
