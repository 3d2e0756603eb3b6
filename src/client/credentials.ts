import { secretForms } from '../log/logger.js';
import { SecretFile } from '../secrets/secret-file.js';

/** Where the key and secret come from: values, and the files they were read from (INVENTORY_API_KEY_FILE, ...). */
export interface CredentialSources {
  key: string;
  secret: string;
  keyFile?: string;
  secretFile?: string;
  /** The new key and secret, after a re-read found them changed (the logger learns them: they are secrets too). */
  onChange?(key: string, secret: string): void;
  /** A file could not be read again: one line naming the variable and the path. */
  onProblem?(line: string): void;
}

/**
 * The service's Basic credentials, which the client asks for each request: when they come from files, a 401 reads
 * the files again, and the new values serve every later request without a restart.
 */
export class Credentials {
  private readonly key: SecretFile;
  private readonly secret: SecretFile;
  private header = '';
  private forms: string[] = [];
  private changes = 0;
  private refused = -1;
  private reading: Promise<boolean> | undefined;

  constructor(private readonly sources: CredentialSources) {
    const problem = (name: string) => (line: string) => sources.onProblem?.(`${name}: ${line}`);
    this.key = new SecretFile(sources.key, sources.keyFile, problem('INVENTORY_API_KEY_FILE'));
    this.secret = new SecretFile(sources.secret, sources.secretFile, problem('INVENTORY_API_SECRET_FILE'));
    this.learn();
  }

  /** Credentials that never change (tests, benches, a configuration without files). */
  static fixed(key: string, secret: string): Credentials {
    return new Credentials({ key, secret });
  }

  /** Whether they can change while the program runs (a key or secret read from a file). */
  get rotatable(): boolean {
    return this.key.file !== undefined || this.secret.file !== undefined;
  }

  /** Changes each time a re-read finds other values. */
  get version(): number {
    return this.changes;
  }

  /** The Authorization header of the credentials now. */
  authorization(): string {
    return this.header;
  }

  /** Every value held so far (the old ones too), in every form it travels in: what answers and errors are cleaned of. */
  secretForms(): string[] {
    return this.forms;
  }

  /** Reads the files again; answers whether the credentials changed (never without files, or when a file is unreadable). */
  reload(): Promise<boolean> {
    // The 401s of requests in flight together share one read (and one change).
    this.reading ??= this.readBoth().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readBoth(): Promise<boolean> {
    const [key, secret] = await Promise.all([this.key.reload(), this.secret.reload()]);
    if (!key && !secret) return false;
    this.changes++;
    this.learn();
    this.sources.onChange?.(this.key.value, this.secret.value);
    return true;
  }

  /** The service refused this version of the credentials (a 401 that a re-read did not answer). */
  markRefused(version: number): void {
    this.refused = Math.max(this.refused, version);
  }

  /** Whether the credentials now are ones the service has refused (so asking it again is pointless until they change). */
  get refusedNow(): boolean {
    return this.refused === this.changes;
  }

  private learn(): void {
    const [k, s] = [this.key.value, this.secret.value];
    this.header = `Basic ${Buffer.from(`${k}:${s}`).toString('base64')}`;
    this.forms = [...new Set([...this.forms, ...secretForms([k, s], [[k, s]])])];
  }
}
