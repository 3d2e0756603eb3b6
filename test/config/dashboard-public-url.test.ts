import { describe, expect, it } from 'vitest';
import { readConfig, type ConfigError } from '../../config/read-config.js';

const publicUrl = (value: string) => readConfig({ DASHBOARD_PUBLIC_URL: value }).dashboard.publicUrl;

describe('DASHBOARD_PUBLIC_URL', () => {
  it('is kept as an origin, in the form browsers send it', () => {
    expect(readConfig({}).dashboard.publicUrl).toBeUndefined();
    expect(publicUrl('https://Ops.Example.com/')).toBe('https://ops.example.com');
    expect(publicUrl('https://ops.example.com:443')).toBe('https://ops.example.com');
    expect(publicUrl('http://10.0.0.5:8080')).toBe('http://10.0.0.5:8080');
  });

  it('refuses a path, a query or credentials, naming the variable', () => {
    const problems = (value: string) => {
      try {
        publicUrl(value);
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    for (const value of [
      'https://ops.example.com/isync',
      'https://ops.example.com/?a=1',
      'https://user:pw@ops.example.com',
      'ops.example.com',
    ]) {
      expect(problems(value), value).toEqual([expect.stringMatching(/^DASHBOARD_PUBLIC_URL must be /)]);
      expect(problems(value)[0]).not.toContain('pw');
    }
  });
});
