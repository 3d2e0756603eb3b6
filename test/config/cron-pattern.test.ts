import { describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { ConfigError, readConfig } from '../../config/read-config.js';

const service = {
  INVENTORY_BASE_URL: 'https://app.example.com/',
  INVENTORY_ACCOUNT: 'acme',
  INVENTORY_API_KEY: 'key-123',
  INVENTORY_API_SECRET: 'secret-456',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    readConfig({ ...service, ...env }, { service: true }, programKinds);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('STOCK_SYNC_CRON', () => {
  it.each(['0 19 * * *', '0 0 19 * * *', '*/15 6-22 * * MON-FRI'])('takes %s', (pattern) => {
    expect(problemsOf({ STOCK_SYNC_CRON: pattern })).toEqual([]);
    expect(readConfig({ ...service, STOCK_SYNC_CRON: pattern }, { service: true }, programKinds).schedule.stockSyncCron).toBe(pattern);
  });

  describe('when a field is out of range or not cron', () => {
    it.each([
      ['0 25 * * *', /expected range 0-23/],
      ['61 * * * *', /expected range 0-59/],
      ['0 19 * * FUNDAY', /cannot resolve alias "fun"/],
      ['0 19 ? * % *', /Invalid characters/],
    ])('names the variable and the problem with %s', (pattern, problem) => {
      const problems = problemsOf({ STOCK_SYNC_CRON: pattern });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^STOCK_SYNC_CRON must be a cron pattern/);
      expect(problems[0]).toMatch(problem);
    });
  });

  it.each([
    ['0 19 * *', 4],
    ['every day at 7', 4],
  ])('says how many fields %s has when not 5 or 6', (pattern, n) => {
    expect(problemsOf({ STOCK_SYNC_CRON: pattern })).toEqual([
      `STOCK_SYNC_CRON must be a cron pattern such as "0 19 * * *": has ${n} field(s), not 5 or 6`,
    ]);
  });
});
