import { describe, expect, it } from 'vitest';
import { readConfig } from '../../config/read-config.js';
import type { OutStream } from '../../src/app/cli-io.js';
import { commandLogger } from '../../src/app/command-context.js';
import { captureOut as sink } from '../helpers/out-stream.js';

const config = readConfig({
  INVENTORY_BASE_URL: 'https://app.example.com',
  INVENTORY_ACCOUNT: 'acme',
  INVENTORY_API_KEY: 'key-0a1b2c',
  INVENTORY_API_SECRET: 'secret-3d4e5f',
  UPSTREAM_URL: 'https://feed.example.com',
  UPSTREAM_TOKEN: 'token-6a7b8c',
  DASHBOARD_PASSWORD: 'password-9d0e',
  LOG_LEVEL: 'debug',
});
const basic = Buffer.from('key-0a1b2c:secret-3d4e5f').toString('base64');

function logEverything(stream: OutStream) {
  const logger = commandLogger(config, stream);
  const job = logger.child({ jobId: 'orders-WEB-1-abc', key: 'WEB-1' });
  job.debug({ headers: { authorization: `Basic ${basic}` }, url: 'https://feed.example.com/orders?token=token-6a7b8c' }, 'request');
  job.info({ note: 'secret-3d4e5f appeared in a message from the service' }, 'order WEB-1: created');
  job.error({ err: new Error('login as key-0a1b2c failed'), password: 'password-9d0e' }, 'job failed');
  return logger;
}

describe('command logger', () => {
  describe('when the output is not a terminal', () => {
    it('writes JSON lines, per-job children bound to job id and key, every secret redacted', () => {
      const out = sink(false);
      logEverything(out.stream);
      const lines = out.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(3);
      for (const line of lines) expect(line).toMatchObject({ jobId: 'orders-WEB-1-abc', key: 'WEB-1' });
      const text = out.lines().join('\n');
      for (const secret of ['key-0a1b2c', 'secret-3d4e5f', 'token-6a7b8c', 'password-9d0e', basic]) expect(text).not.toContain(secret);
      expect(text).toContain('[REDACTED]');
    });
  });

  describe('when the output is a terminal', () => {
    it('writes readable lines, still redacted', () => {
      const out = sink(true);
      logEverything(out.stream);
      const text = out.lines().join('\n');
      expect(() => JSON.parse(out.lines()[0]!)).toThrow();
      expect(text).toContain('order WEB-1: created');
      expect(text).toContain('jobId');
      for (const secret of ['key-0a1b2c', 'secret-3d4e5f', 'token-6a7b8c', 'password-9d0e', basic]) expect(text).not.toContain(secret);
    });
  });
});
