import { describe, expect, it } from 'vitest';
import { keyInHead } from '../../src/records/record-head.js';
import { bomKind } from '../../jobs/boms/bom-kind.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { stockCountKind } from '../../jobs/stock/stock-count-kind.js';

describe('the key of a record that cannot be parsed whole', () => {
  it('is read from the top level of its start, whatever comes after', () => {
    expect(keyInHead(orderKind, `{"origin":"Main","orderId":"WEB-7","lines":${'['.repeat(5000)}`)).toBe('WEB-7');
    expect(keyInHead(stockCountKind, '{ "countId" : "CNT \\"A\\"", "items": [')).toBe('CNT "A"');
    expect(keyInHead(bomKind, '{"productId":"  GIFT-SET  ","components":"\ufffd')).toBe('GIFT-SET');
  });

  it('is not taken from a nested object or from a string that looks like one', () => {
    expect(keyInHead(orderKind, '{"meta":{"orderId":"NESTED"},"note":"\\"orderId\\":\\"FAKE\\"","lines":[')).toBeUndefined();
    expect(keyInHead(orderKind, '{"lines":[{"orderId":"IN-LINE"}],"orderId":"WEB-9"}')).toBe('WEB-9');
    expect(keyInHead(orderKind, '[{"orderId":"IN-ARRAY"}]')).toBeUndefined();
  });

  it('is none when it is not a non-empty string, or the start ends first', () => {
    expect(keyInHead(orderKind, '{"orderId":42}')).toBeUndefined();
    expect(keyInHead(orderKind, '{"orderId":"  "}')).toBeUndefined();
    expect(keyInHead(orderKind, '{"orderId":"WEB-CUT')).toBeUndefined();
    expect(keyInHead(orderKind, 'not json')).toBeUndefined();
  });
});
