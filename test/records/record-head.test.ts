import { describe, expect, it } from 'vitest';
import { keyInHead } from '../../src/records/record-head.js';

describe('the key of a record that cannot be parsed whole', () => {
  it('is read from the top level of its start, whatever comes after', () => {
    expect(keyInHead('orders', `{"origin":"Main","orderId":"WEB-7","lines":${'['.repeat(5000)}`)).toBe('WEB-7');
    expect(keyInHead('stock-counts', '{ "countId" : "CNT \\"A\\"", "items": [')).toBe('CNT "A"');
    expect(keyInHead('boms', '{"productId":"  GIFT-SET  ","components":"\ufffd')).toBe('GIFT-SET');
  });

  it('is not taken from a nested object or from a string that looks like one', () => {
    expect(keyInHead('orders', '{"meta":{"orderId":"NESTED"},"note":"\\"orderId\\":\\"FAKE\\"","lines":[')).toBeUndefined();
    expect(keyInHead('orders', '{"lines":[{"orderId":"IN-LINE"}],"orderId":"WEB-9"}')).toBe('WEB-9');
    expect(keyInHead('orders', '[{"orderId":"IN-ARRAY"}]')).toBeUndefined();
  });

  it('is none when it is not a non-empty string, or the start ends first', () => {
    expect(keyInHead('orders', '{"orderId":42}')).toBeUndefined();
    expect(keyInHead('orders', '{"orderId":"  "}')).toBeUndefined();
    expect(keyInHead('orders', '{"orderId":"WEB-CUT')).toBeUndefined();
    expect(keyInHead('orders', 'not json')).toBeUndefined();
  });
});
