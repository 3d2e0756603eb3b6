import { describe, expect, it } from 'vitest';
import { forAccount } from '../../src/errors/error-hints.js';

describe('forAccount', () => {
  describe('when a text prints command lines', () => {
    it('gives each its --account, wherever it stands in the line', () => {
      expect(forAccount('See why: inventory-sync jobs show orders-W-1-ab. Then: inventory-sync jobs retry orders-W-1-ab', 'acme')).toBe(
        'See why: inventory-sync --account acme jobs show orders-W-1-ab. Then: inventory-sync --account acme jobs retry orders-W-1-ab',
      );
      expect(forAccount('`inventory-sync sync --once --dry-run`\n  inventory-sync resume --stream orders', 'b-2')).toBe(
        '`inventory-sync --account b-2 sync --once --dry-run`\n  inventory-sync --account b-2 resume --stream orders',
      );
    });
  });

  describe('when a line already names the account, or names the program only', () => {
    it('leaves it as it is', () => {
      const text = 'inventory-sync --account acme status; inventory-sync, account acme (isync-acme): paused; inventory-sync (isync)';
      expect(forAccount(text, 'acme')).toBe(text);
    });
  });
});
