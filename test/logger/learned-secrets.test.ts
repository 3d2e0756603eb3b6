import { describe, expect, it } from 'vitest';
import { addSecrets, createLogger } from '../../src/log/logger.js';
import { captureOut } from '../helpers/out-stream.js';

const AT_START = 'key-at-start-3f9a';
const ROTATED_KEY = 'key-rotated-7b2e';
const ROTATED_SECRET = 'secret-rotated-c41d';

describe('secrets learned while the logger runs', () => {
  describe('when credentials are read again from their files', () => {
    it('redacts the new values (as is and as Basic credentials) in the logger and its children, and still the old ones', () => {
      const out = captureOut(false);
      const logger = createLogger({ level: 'info', destination: out.stream, secrets: [AT_START] });
      const child = logger.child({ jobId: 'orders-1' });
      const basic = Buffer.from(`${ROTATED_KEY}:${ROTATED_SECRET}`).toString('base64');
      child.info({ said: `${ROTATED_KEY} ${ROTATED_SECRET} ${basic}` }, 'before');
      addSecrets(child, [ROTATED_KEY, ROTATED_SECRET], [[ROTATED_KEY, ROTATED_SECRET]]);
      logger.info({ said: `${AT_START} ${ROTATED_KEY}` }, `after ${ROTATED_SECRET}`);
      child.info({ said: basic }, 'child after');
      const [before, after, childAfter] = out.lines();
      // Before it was learned it was no secret of this logger: the test shows it would leak otherwise.
      expect(before).toContain(ROTATED_KEY);
      for (const line of [after!, childAfter!]) {
        for (const s of [AT_START, ROTATED_KEY, ROTATED_SECRET, basic]) expect(line).not.toContain(s);
        expect(line).toContain('[REDACTED]');
      }
    });
  });
});
