import { describe, expect, it } from 'vitest';
import { keyInHead } from '../../src/records/record-head.js';
import { bomStream } from '../../jobs/boms/bom-stream.js';
import { orderStream } from '../../jobs/orders/order-stream.js';
import { stockCountStream } from '../../jobs/stock/stock-count-stream.js';

describe('the key of a record that cannot be parsed whole', () => {
  it('is read from the top level of its start, whatever comes after', () => {
    expect(keyInHead(orderStream, `{"origin":"Main","orderId":"WEB-7","lines":${'['.repeat(5000)}`)).toBe('WEB-7');
    expect(keyInHead(stockCountStream, '{ "countId" : "CNT \\"A\\"", "items": [')).toBe('CNT "A"');
    expect(keyInHead(bomStream, '{"productId":"  GIFT-SET  ","components":"\ufffd')).toBe('GIFT-SET');
  });

  it('is not taken from a nested object or from a string that looks like one', () => {
    expect(keyInHead(orderStream, '{"meta":{"orderId":"NESTED"},"note":"\\"orderId\\":\\"FAKE\\"","lines":[')).toBeUndefined();
    expect(keyInHead(orderStream, '{"lines":[{"orderId":"IN-LINE"}],"orderId":"WEB-9"}')).toBe('WEB-9');
    expect(keyInHead(orderStream, '[{"orderId":"IN-ARRAY"}]')).toBeUndefined();
  });

  it('is none when it is not a non-empty string, or the start ends first', () => {
    expect(keyInHead(orderStream, '{"orderId":42}')).toBeUndefined();
    expect(keyInHead(orderStream, '{"orderId":"  "}')).toBeUndefined();
    expect(keyInHead(orderStream, '{"orderId":"WEB-CUT')).toBeUndefined();
    expect(keyInHead(orderStream, 'not json')).toBeUndefined();
  });
});
