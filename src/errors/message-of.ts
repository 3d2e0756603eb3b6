/** The message of an error, or the thrown value as text when it is not an Error (for logs and reasons). */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
