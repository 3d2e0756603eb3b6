import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { loadMapping } from '../../config/mapping-file.js';
import { ConfigError, readConfig } from '../../config/read-config.js';
import { mappedName } from '../../src/catalog/mapped-catalog.js';

const dir = mkdtempSync(join(tmpdir(), 'isync-mapping-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    readConfig(env, {}, programKinds);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

const CSV = `kind,upstream,service
# products
product,SKU-9,MUG-BLUE
product,"SKU ""quoted""",MUG-GREEN
facility,WH1,Main Warehouse
facility,"Bin 3, back",Main Warehouse / A-02
`;

const JSON_TEXT = `{
  "products": { "SKU-9": "MUG-BLUE" },
  "facilities": { "WH1": "Main Warehouse", "WH2 / B-1": "/demo/api/facility/10002" }
}`;

describe('the mapping file', () => {
  describe('when it is a good CSV', () => {
    it('maps products and facilities, quotes and a header line allowed', () => {
      const r = loadMapping(file('good.csv', CSV));
      expect('mapping' in r).toBe(true);
      if (!('mapping' in r)) return;
      expect([...r.mapping.products]).toEqual([
        ['SKU-9', 'MUG-BLUE'],
        ['SKU "quoted"', 'MUG-GREEN'],
      ]);
      expect([...r.mapping.facilities]).toEqual([
        ['WH1', 'Main Warehouse'],
        ['Bin 3, back', 'Main Warehouse / A-02'],
      ]);
    });
  });

  describe('when it is a good JSON', () => {
    it('maps products and facilities, a path or a URL as target', () => {
      const r = loadMapping(file('good.json', JSON_TEXT));
      if (!('mapping' in r)) throw new Error(r.problems.join('\n'));
      expect(mappedName(r.mapping, 'product', 'SKU-9')).toBe('MUG-BLUE');
      expect(mappedName(r.mapping, 'product', 'MUG-BLUE')).toBeUndefined();
      expect(mappedName(r.mapping, 'facility', 'WH2/B-1')).toBe('/demo/api/facility/10002');
    });

    it("reads a path under an aliased magazine as the same path under the service's name", () => {
      const r = loadMapping(file('paths.json', JSON_TEXT));
      if (!('mapping' in r)) throw new Error(r.problems.join('\n'));
      expect(mappedName(r.mapping, 'facility', 'WH1')).toBe('Main Warehouse');
      expect(mappedName(r.mapping, 'facility', 'WH1 / A-01')).toBe('Main Warehouse / A-01');
      expect(mappedName(r.mapping, 'facility', 'WH9 / A-01')).toBeUndefined();
    });
  });

  describe('when it is malformed', () => {
    it('names the file and the line of each CSV problem', () => {
      const path = file(
        'bad.csv',
        [
          'kind,upstream,service',
          'product,SKU-9,MUG-BLUE',
          'product,SKU-8',
          'widget,a,b',
          'product, ,MUG-RED',
          'product,SKU-7,',
          'product,SKU-9,MUG-RED',
          'product,SKU-9,MUG-BLUE',
          'product,"open,x',
        ].join('\n'),
      );
      expect(problemsOf({ MAPPING_FILE: path })).toEqual([
        `MAPPING_FILE: ${path} line 3: has 2 columns; expected 3: kind,upstream,service`,
        `MAPPING_FILE: ${path} line 4: unknown kind: the kind must be product or facility (JSON: products or facilities)`,
        `MAPPING_FILE: ${path} line 5: the upstream value is empty`,
        `MAPPING_FILE: ${path} line 6: the service value for "SKU-7" is empty`,
        `MAPPING_FILE: ${path} line 7: "SKU-9" is mapped again, to "MUG-RED" (line 2 maps it to "MUG-BLUE")`,
        `MAPPING_FILE: ${path} line 9: a quoted value is not closed`,
      ]);
    });

    it('names the line of a JSON syntax error, without quoting the text', () => {
      const path = file('syntax.json', '{\n  "products": {\n    "SKU-9": "MUG-BLUE",\n  }\n}');
      expect(problemsOf({ MAPPING_FILE: path })).toEqual([`MAPPING_FILE: ${path} line 4: is not valid JSON (column 3)`]);
    });

    it('names the line of each JSON problem, a key given twice included', () => {
      const path = file(
        'bad.json',
        '{\n  "products": { "SKU-9": "MUG-BLUE", "SKU-8": "" },\n  "facilities": {\n    "WH1": "Main Warehouse",\n    "WH1": "North Depot",\n    "WH2": 3\n  },\n  "bins": {}\n}',
      );
      expect(problemsOf({ MAPPING_FILE: path })).toEqual([
        `MAPPING_FILE: ${path} line 2: the service value for "SKU-8" is empty`,
        `MAPPING_FILE: ${path} line 5: "WH1" is mapped again, to "North Depot" (line 4 maps it to "Main Warehouse")`,
        `MAPPING_FILE: ${path} line 6: the service value for "WH2" must be a text`,
        `MAPPING_FILE: ${path} line 8: unknown kind: the top keys must be products or facilities`,
      ]);
    });

    it('refuses a missing file or another extension', () => {
      expect(problemsOf({ MAPPING_FILE: join(dir, 'none.csv') })).toEqual([
        `MAPPING_FILE: ${join(dir, 'none.csv')} cannot be read (no such file)`,
      ]);
      expect(problemsOf({ MAPPING_FILE: file('map.txt', CSV) })).toEqual([
        `MAPPING_FILE: ${join(dir, 'map.txt')} must end in .csv or .json (the extension says how it is read)`,
      ]);
    });

    it('never echoes a secret, even when the file is a misnamed .env', () => {
      const path = file('env.csv', 'INVENTORY_API_SECRET=sec-1234567\nproduct,sec-1234567,a\nproduct,sec-1234567,b\n');
      const problems = problemsOf({ MAPPING_FILE: path, INVENTORY_API_SECRET: 'sec-1234567' });
      expect(problems).toHaveLength(2);
      expect(problems.join('\n')).not.toContain('sec-1234567');
      expect(problems[0]).toBe(`MAPPING_FILE: ${path} line 1: has 1 column; expected 3: kind,upstream,service`);
    });
  });

  describe('in the configuration', () => {
    it('is loaded at start, with the floors', () => {
      const c = readConfig(
        { MAPPING_FILE: file('cfg.csv', CSV), SYNC_ORDERS_SINCE: '2026-02-01', SYNC_COUNTS_SINCE: '2026-03-01' },
        {},
        programKinds,
      );
      expect(c.mapping?.products.get('SKU-9')).toBe('MUG-BLUE');
      expect(c.goLive).toEqual({ SYNC_ORDERS_SINCE: '2026-02-01', SYNC_COUNTS_SINCE: '2026-03-01' });
    });

    it('has no mapping and no floor unless set', () => {
      const c = readConfig({}, {}, programKinds);
      expect(c.mapping).toBeUndefined();
      expect(c.goLive).toEqual({});
    });

    it('refuses floors that are not calendar dates, naming each variable', () => {
      expect(problemsOf({ SYNC_ORDERS_SINCE: '2026-02-30', SYNC_COUNTS_SINCE: '01/02/2026' })).toEqual([
        'SYNC_ORDERS_SINCE must be a calendar date YYYY-MM-DD, such as 2026-01-01',
        'SYNC_COUNTS_SINCE must be a calendar date YYYY-MM-DD, such as 2026-01-01',
      ]);
      expect(problemsOf({ SYNC_ORDERS_SINCE: '2026-02-01T00:00:00' })).toEqual([
        'SYNC_ORDERS_SINCE must be a calendar date YYYY-MM-DD, such as 2026-01-01',
      ]);
    });
  });
});
