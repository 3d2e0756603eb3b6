import { describe, expect, it } from 'vitest';
import { settingKey, settingsOf } from '../../config/kind-setting.js';
import { ConfigError, readConfig } from '../../config/read-config.js';
import { positiveInt } from '../../config/setting-rules.js';

const poll = (name: string, dflt?: number) => ({
  [name]: { rule: positiveInt(name), doc: 'a poll', ...(dflt === undefined ? {} : { default: dflt }) },
});

describe("a kind's own settings", () => {
  it('are read with their defaults into config.schedule, by the camelCase of their variable', () => {
    expect(settingKey('X_POLL_SECONDS')).toBe('xPollSeconds');
    const kinds = [{ settings: { ...poll('X_POLL_SECONDS', 9), ...poll('Y_POLL_SECONDS') } }];
    expect(readConfig({}, {}, kinds).schedule).toEqual({ xPollSeconds: 9 });
    expect(readConfig({ Y_POLL_SECONDS: '4' }, {}, kinds).schedule).toEqual({ xPollSeconds: 9, yPollSeconds: 4 });
  });

  it("fail at start with the program's message, one line each, beside the program's own problems", () => {
    const kinds = [{ settings: poll('X_POLL_SECONDS', 9) }];
    let problems: string[] = [];
    try {
      readConfig({ X_POLL_SECONDS: '0', LOG_LEVEL: 'loud' }, {}, kinds);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems = err.problems;
    }
    expect(problems.sort()).toEqual([
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
      'X_POLL_SECONDS must be greater than 0',
    ]);
  });

  it('may not be declared twice, by two kinds or by a kind and the program', () => {
    expect(() => settingsOf([{ settings: poll('X_POLL_SECONDS') }, { settings: poll('X_POLL_SECONDS') }])).toThrow(
      /X_POLL_SECONDS is declared twice/,
    );
    expect(() => settingsOf([{ settings: poll('JOB_ATTEMPTS') }])).toThrow(/JOB_ATTEMPTS is declared twice/);
  });
});
