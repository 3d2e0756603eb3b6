import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { captureOut } from '../helpers/out-stream.js';

/** Secrets a careless operator could choose: quotes, backslashes, a JSON fragment. */
const QUOTED = 'pa"ss\\w0rd-7f3a';
const JSONISH = '{"k":"v\\\\x"}-91c2';
const PLAIN = 'tok-5d8e2b6a';

/** Every string in a parsed value, at any depth. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]);
  return [];
}

function logLines(pretty = false) {
  const out = captureOut(pretty);
  const logger = createLogger({ level: 'debug', destination: out.stream, pretty, secrets: [QUOTED, JSONISH, PLAIN] });
  return { logger, out };
}

describe('log redaction', () => {
  describe('when a header or a credential is logged under any case', () => {
    it('replaces its value, at any depth, in the log object and in child bindings', () => {
      const { logger, out } = logLines();
      logger.info({ headers: { Authorization: 'Basic dXNlcjpwYXNz', accept: 'application/json' } }, 'request');
      logger.info(
        { req: { headers: { AUTHORIZATION: 'Bearer abc', 'Proxy-Authorization': 'Basic x', Cookie: 'isync_session=s1' } } },
        'nested',
      );
      logger.info({ config: { ApiKey: 'k1', apiSecret: 's1', Token: 't1', PASSWORD: 'p1' }, list: [{ authorization: 'a1' }] }, 'config');
      logger.child({ headers: { Authorization: 'Bearer child' } }).info('child');
      const [request, nested, config, child] = out.lines().map((l) => JSON.parse(l) as Record<string, any>);
      expect(request!.headers).toEqual({ Authorization: '[REDACTED]', accept: 'application/json' });
      expect(nested!.req.headers).toEqual({ AUTHORIZATION: '[REDACTED]', 'Proxy-Authorization': '[REDACTED]', Cookie: '[REDACTED]' });
      expect(config!.config).toEqual({ ApiKey: '[REDACTED]', apiSecret: '[REDACTED]', Token: '[REDACTED]', PASSWORD: '[REDACTED]' });
      expect(config!.list).toEqual([{ authorization: '[REDACTED]' }]);
      expect(child!.headers).toEqual({ Authorization: '[REDACTED]' });
      for (const value of ['dXNlcjpwYXNz', 'abc', 'Basic x', 's1', 'k1', 't1', 'p1', 'a1', 'Bearer child'])
        expect(out.text()).not.toContain(value);
    });

    it('leaves an error logged with them whole', () => {
      const { logger, out } = logLines();
      logger.error({ err: new Error('boom'), headers: { Authorization: 'x-secret-header' } }, 'failed');
      const line = JSON.parse(out.lines()[0]!) as { err: { message: string; stack: string }; headers: unknown };
      expect(line.err.message).toBe('boom');
      expect(line.err.stack).toContain('Error: boom');
      expect(line.headers).toEqual({ Authorization: '[REDACTED]' });
    });
  });

  describe('when a secret holds quotes or backslashes', () => {
    it('is redacted in the message, in fields, and inside JSON logged as text', () => {
      const { logger, out } = logLines();
      logger.info(`login with ${QUOTED} and ${JSONISH} failed`);
      logger.info({ body: JSON.stringify({ password: QUOTED, other: JSONISH }), note: `token=${PLAIN}` }, 'answer');
      logger.info({ url: `https://feed.example/orders?token=${encodeURIComponent(QUOTED)}` }, 'request');
      const lines = out.lines();
      expect(lines).toHaveLength(3);
      for (const line of lines) {
        const parsed = JSON.parse(line) as unknown;
        for (const s of strings(parsed)) for (const secret of [QUOTED, JSONISH, PLAIN]) expect(s).not.toContain(secret);
        for (const form of [JSON.stringify(QUOTED).slice(1, -1), JSON.stringify(JSONISH).slice(1, -1), encodeURIComponent(QUOTED)])
          expect(line).not.toContain(form);
      }
      expect((JSON.parse(lines[0]!) as { msg: string }).msg).toBe('login with [REDACTED] and [REDACTED] failed');
      expect(JSON.parse((JSON.parse(lines[1]!) as { body: string }).body)).toEqual({ password: '[REDACTED]', other: '[REDACTED]' });
    });

    it('is redacted in pretty output too', () => {
      const { logger, out } = logLines(true);
      logger.info({ secret: QUOTED }, `with ${JSONISH}`);
      logger.flush();
      return new Promise<void>((resolve) =>
        setTimeout(() => {
          expect(out.text()).toContain('[REDACTED]');
          for (const secret of [QUOTED, JSONISH]) expect(out.text()).not.toContain(secret);
          resolve();
        }, 500),
      );
    });
  });
});
