/**
 * A list of names (accounts) bounded for a line or a log record: a deployment of ten thousand accounts prints a count
 * and a few names, never all of them on one line (`accounts list` and `status` name every one, paged).
 */

/** Names a line or a log record shows of a long list. */
export const NAMES_SHOWN = 5;

/** "acme, beta, gamma": every name of a short list; of a long one the first NAMES_SHOWN and "and 995 more". */
export function someNames(names: readonly string[], shown = NAMES_SHOWN): string {
  if (names.length <= shown) return names.join(', ');
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}

/** A log record's fields of a list of accounts: how many, and their names (the first NAMES_SHOWN of a long list). */
export function accountsFields(names: readonly string[]): { accountCount: number; accounts: string[] } {
  return { accountCount: names.length, accounts: names.slice(0, NAMES_SHOWN) };
}
