import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig, secretsOf } from '../../config/read-config.js';
import { describeConfig } from '../../src/app/command-context.js';

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const NEXT = `whsec_${Buffer.from('fedcba9876543210fedcba9876543210').toString('base64')}`;

function problemsOf(env: Record<string, string>): string[] {
  try {
    readConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('the push receiver settings', () => {
  it('has no receiver unless INGEST_PORT is set, on loopback, with the limits of config/defaults.ts', () => {
    const c = readConfig({});
    expect(c.ingest).toMatchObject({ port: undefined, host: '127.0.0.1', maxBodyBytes: 8 * 1024 * 1024, ratePerSecond: 2000 });
  });

  it('needs INGEST_SECRET with INGEST_PORT: one line naming it', () => {
    expect(problemsOf({ INGEST_PORT: '8090' })).toEqual([
      'INGEST_SECRET: is required with INGEST_PORT (or INGEST_SECRET_FILE; see docs/push.md)',
    ]);
  });

  it('takes several secrets, comma-separated, and counts each as a secret', () => {
    const c = readConfig({ INGEST_PORT: '8090', INGEST_SECRET: `${SECRET}, ${NEXT}` });
    expect(c.ingest.port).toBe(8090);
    expect(secretsOf(c)).toEqual(expect.arrayContaining([SECRET, NEXT]));
  });

  it('is described for the log without the secrets', () => {
    const described = JSON.stringify(
      describeConfig(readConfig({ INGEST_PORT: '8090', INGEST_SECRET: SECRET, INGEST_HMAC_SECRET: 'hmac-1a2b' })),
    );
    expect(described).toContain('"secret":"set"');
    expect(described).not.toContain(SECRET.slice('whsec_'.length, 20));
    expect(described).not.toContain('hmac-1a2b');
  });

  it('refuses a secret that is not whsec_<base64>, without showing it', () => {
    const problems = problemsOf({ INGEST_PORT: '8090', INGEST_SECRET: `${SECRET},not-a-whsec-value` });
    expect(problems).toEqual(['INGEST_SECRET: secret 2 of 2 must start with whsec_ (whsec_<base64>)']);
    expect(problems.join('\n')).not.toContain('not-a-whsec-value');
    expect(problemsOf({ INGEST_SECRET: 'whsec_c2hvcnQ=' })).toEqual([
      'INGEST_SECRET: the secret must hold at least 16 random bytes (whsec_ followed by their base64)',
    ]);
  });
});
