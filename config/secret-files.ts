import { readSecretFile } from '../src/secrets/secret-file.js';
import { secretSettings, type SecretSetting } from './schema.js';

/** The environment with each secret setting given as a file read into it, and which came from where. */
export interface SecretFiles {
  env: Record<string, string>;
  /** The file of each secret setting given as `X_FILE`. */
  files: Partial<Record<SecretSetting, string>>;
  /** One line per problem, each naming its variable (and a file's path), never a value. */
  problems: string[];
  /** Settings whose file could not be read: not to be called missing too. */
  failed: Set<string>;
}

/** X and X_FILE both set: said with where each came from when the .env file set one (or both). */
function bothSet(name: string, fromDotenv: ReadonlySet<string>): string {
  const file = `${name}_FILE`;
  if (!fromDotenv.has(name) && !fromDotenv.has(file)) return `${name}, ${file}: set one of them, not both`;
  const origin = (v: string) => `${v} (set in ${fromDotenv.has(v) ? '.env' : 'the environment'})`;
  return `${origin(name)}, ${origin(file)}: set one of them, not both; remove one (the .env file only fills in what the environment lacks)`;
}

/**
 * Reads `X_FILE` for every secret setting X: exactly one of X and X_FILE may be set. `fromDotenv`: the variables the
 * working folder's .env file set, so that a problem says which of the two came from there.
 */
export function readSecretFiles(env: Record<string, string>, fromDotenv: ReadonlySet<string> = new Set()): SecretFiles {
  const out: SecretFiles = { env: { ...env }, files: {}, problems: [], failed: new Set() };
  for (const name of secretSettings) {
    const path = env[`${name}_FILE`]?.trim();
    if (!path) continue;
    if (env[name] !== undefined) {
      out.problems.push(bothSet(name, fromDotenv));
      out.failed.add(name);
      continue;
    }
    const read = readSecretFile(path);
    if ('problem' in read) {
      out.problems.push(`${name}_FILE: ${read.problem}`);
      out.failed.add(name);
    } else {
      out.env[name] = read.value;
      out.files[name] = path;
    }
  }
  return out;
}
