import { describe, expect, it } from 'vitest';
import { messageOf } from '../../src/errors/message-of.js';

describe('messageOf', () => {
  it("gives an Error's message, without its name", () => {
    expect(messageOf(new TypeError('bad input'))).toBe('bad input');
  });

  it('gives anything else thrown as text', () => {
    expect(messageOf('plain words')).toBe('plain words');
    expect(messageOf(42)).toBe('42');
    expect(messageOf(undefined)).toBe('undefined');
  });
});
