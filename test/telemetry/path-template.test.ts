import { describe, expect, it } from 'vitest';
import { callSpanName, pathTemplate } from '../../src/telemetry/path-template.js';

describe('call span names', () => {
  it.each([
    ['/acme/api/order', '/{account}/api/order', 'POST /api/order'],
    ['/acme/api/order/WEB-1', '/{account}/api/order/{id}', 'POST /api/order/{id}'],
    ['/acme/api/order/WEB%2F1/complete', '/{account}/api/order/{id}/complete', 'POST /api/order/{id}/complete'],
    ['/acme/api/shipment/328966', '/{account}/api/shipment/{id}', 'POST /api/shipment/{id}'],
    ['/acme/api/product?limit=5000', '/{account}/api/product', 'POST /api/product'],
    ['/acme/api/order/complete', '/{account}/api/order/{id}', 'POST /api/order/{id}'],
    ['/acme/api/order/WEB-1/orderItem/7', '/{account}/api/order/{id}/orderItem/{id}', 'POST /api/order/{id}/orderItem/{id}'],
    ['/other/api/order/WEB-1', '/{other}', 'POST /{other}'],
  ])('%s is traced as %s, named %s', (path, template, name) => {
    expect(pathTemplate(path, 'acme')).toBe(template);
    expect(callSpanName('POST', pathTemplate(path, 'acme'))).toBe(name);
  });

  it('never keeps an id that looks like an action name in the id position', () => {
    expect(pathTemplate('/acme/api/shipment/ship', 'acme')).toBe('/{account}/api/shipment/{id}');
  });
});
