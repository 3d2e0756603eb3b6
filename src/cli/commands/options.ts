import { InvalidArgumentError } from 'commander';
import { parseProfile } from '../../sandbox/profile-rules.js';
import type { SandboxProfile } from '../../sandbox/sandbox-options.js';

/** A commander argument parser for a TCP port (0 = pick a free one). */
export function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return n;
}

/** A commander argument parser for whole numbers > 0. */
export function positive(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a whole number greater than 0');
  return n;
}

/** A commander argument parser for a sandbox profile (observed or spec). */
export function sandboxProfile(v: string): SandboxProfile {
  try {
    return parseProfile(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}
