import { readFileSync } from 'node:fs';

/** A secret file read: its value, or why it cannot be used (naming the path, never the content). */
export type SecretFileRead = { value: string } | { problem: string };

/** The secret a file holds: its text without trailing newlines (\n, \r\n), which are not part of it. */
export function readSecretFile(path: string): SecretFileRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    return { problem: `cannot read ${path} (${code})` };
  }
  const value = text.replace(/(\r?\n)+$/, '');
  return value.trim() ? { value } : { problem: `${path} is empty` };
}

/**
 * One secret as the program holds it: the value read at start, and, when it came from a file (X_FILE), that file
 * to read again when the value may have been rotated in place (Kubernetes or Docker secrets, a Vault agent).
 */
export class SecretFile {
  private current: string;
  private reading: Promise<boolean> | undefined;
  /** The last problem told, so that a file missing for a while is told once, not at every 401. */
  private told: string | undefined;

  /** `onProblem`: the file could not be read again (the value read before stays in use); a line naming the path, once. */
  constructor(
    value: string,
    readonly file?: string,
    private readonly onProblem?: (line: string) => void,
  ) {
    this.current = value;
  }

  get value(): string {
    return this.current;
  }

  /** Reads the file again (callers at once share one read); answers whether the value changed. False without a file. */
  reload(): Promise<boolean> {
    if (!this.file) return Promise.resolve(false);
    this.reading ??= Promise.resolve()
      .then(() => this.readNow())
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  private readNow(): boolean {
    const read = readSecretFile(this.file!);
    if ('problem' in read) {
      if (read.problem !== this.told) this.onProblem?.(`${read.problem}: the value read before stays in use`);
      this.told = read.problem;
      return false;
    }
    this.told = undefined;
    // Values are held as the configuration holds them (config/schema.ts trims settings).
    const value = read.value.trim();
    if (value === this.current) return false;
    this.current = value;
    return true;
  }
}
