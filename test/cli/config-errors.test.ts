import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, freshCwd, runCli } from './run-cli.js';

describe.concurrent('the command line', () => {
  describe('when the configuration is wrong', () => {
    it('prints one line per problem, naming each variable, and exits 2', async () => {
      const r = await runCli(['jobs', 'list'], { ...baseEnv(), REDIS_URL: 'localhost:6379', LOG_LEVEL: 'loud', WORKER_HTTP_PORT: '-1' });
      expect(r.code).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines).toContain('REDIS_URL must start with redis:// or rediss://');
      expect(lines.find((l) => l.startsWith('LOG_LEVEL'))).toContain('must be one of');
      expect(lines.find((l) => l.startsWith('WORKER_HTTP_PORT'))).toContain('0 or more');
      expect(r.stdout).toBe('');
    });

    it('stops `worker` before it starts, one line per problem, a push receiver without its secret included', async () => {
      const r = await runCli(['worker'], {
        ...baseEnv(),
        INVENTORY_BASE_URL: 'http://127.0.0.1:1',
        INVENTORY_ACCOUNT: 'demo',
        INVENTORY_API_KEY: 'k',
        INVENTORY_API_SECRET: 's',
        SHUTDOWN_GRACE_SECONDS: '0',
        INGEST_PORT: '8090',
      });
      expect(r.code).toBe(2);
      // No UPSTREAM_URL is no problem: such a worker takes pushed and imported records only.
      expect(r.stderr.trim().split('\n').sort()).toEqual([
        'INGEST_SECRET: is required with INGEST_PORT (or INGEST_SECRET_FILE; see docs/push.md)',
        'SHUTDOWN_GRACE_SECONDS must be greater than 0',
      ]);
    });

    it('reads a .env file in the working folder', async () => {
      const cwd = freshCwd();
      writeFileSync(join(cwd, '.env'), 'QUEUE_PREFIX=has space\n');
      const r = await runCli(['jobs', 'list'], baseEnv(), { cwd });
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe('QUEUE_PREFIX may hold letters, digits, _ - . and {} only');
    });
  });

  describe('when the usage is wrong', () => {
    it('exits 2 for an unknown command', async () => {
      const r = await runCli(['frobnicate'], baseEnv());
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("unknown command 'frobnicate'");
    });

    it('exits 0 for --help', async () => {
      const r = await runCli(['--help'], baseEnv());
      expect(r.code).toBe(0);
      for (const cmd of ['worker', 'sync', 'import', 'jobs', 'status', 'dashboard', 'sandbox', 'demo'])
        expect(r.stdout).toContain(`  ${cmd}`);
    });
  });

  describe('when Redis does not answer', () => {
    it('exits 3 and says where it looked and what to do', async () => {
      const r = await runCli(['jobs', 'list'], { ...baseEnv(), REDIS_URL: 'redis://:hunter22@127.0.0.1:1' });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('Redis could not be reached at redis://:***@127.0.0.1:1');
      expect(r.stderr).toContain('ECONNREFUSED');
      expect(r.stderr).toContain('REDIS_URL');
      expect(r.stderr).not.toContain('hunter22');
    });
  });
});
