/**
 * A command line that a hint prints, as it runs where it was printed: `inventory-sync` and its arguments, with
 * `--account NAME` when the printing command ran for an account of ACCOUNTS_FILE (a command of one account needs it
 * when the file names several).
 */
export function cliLine(args: string, account?: string): string {
  return `inventory-sync ${account === undefined ? '' : `--account ${account} `}${args}`;
}
