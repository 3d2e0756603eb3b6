import { describe, expect, it } from 'vitest';
import { STREAMS } from '../../jobs/kinds.js';
import { testWorld } from '../helpers/test-world.js';

describe('the test world', () => {
  describe('when asked for a stream its list of kinds does not have', () => {
    it("throws naming the list's streams, instead of running another kind's job", async () => {
      await expect(testWorld('unknown-stream', { streams: ['no-such-stream'] })).rejects.toThrow(
        `no stream no-such-stream; streams: ${STREAMS.join(', ')}`,
      );
    });
  });
});
