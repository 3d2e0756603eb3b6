import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseMappingCsv } from './mapping-csv.js';
import { parseMappingJson } from './mapping-json.js';
import type { MappingEntry, MappingProblem } from './mapping-entry.js';

/** Upstream names the service knows by others (MAPPING_FILE; docs/mapping.md). */
export interface Mapping {
  /** The file, as MAPPING_FILE names it. */
  file: string;
  /** Upstream productId → service productId. */
  products: ReadonlyMap<string, string>;
  /** Upstream facility name (key: facilityKey of it) → service facility name, "Magazine / location" path or facilityUrl. */
  facilities: ReadonlyMap<string, string>;
}

/** Most problems listed for one file; a broken file of a million lines says the first ones. */
const MAX_PROBLEMS = 20;

const KINDS: Record<string, 'products' | 'facilities'> = {
  product: 'products',
  products: 'products',
  facility: 'facilities',
  facilities: 'facilities',
};

/** "WH1/Bin 3" and "WH1 /  Bin 3" are one name, as the catalog reads paths; a URL stays as it is. */
export function facilityKey(name: string): string {
  const text = name.trim();
  if (text.startsWith('/') || /^https?:\/\//i.test(text)) return text;
  return text
    .split('/')
    .map((p) => p.trim())
    .join(' / ');
}

/** The mapping of checked entries; every problem (unknown kind, empty value, a key mapped twice to two targets) by line. */
export function buildMapping(file: string, entries: MappingEntry[]): { mapping: Mapping; problems: MappingProblem[] } {
  const maps = { products: new Map<string, string>(), facilities: new Map<string, string>() };
  const lineOf = new Map<string, number>();
  const problems: MappingProblem[] = [];
  for (const e of entries) {
    const kind = KINDS[e.kind.trim().toLowerCase()];
    const upstream = e.upstream.trim();
    const service = e.service.trim();
    if (!kind) problems.push({ line: e.line, reason: 'unknown kind: the kind must be product or facility (JSON: products or facilities)' });
    else if (!upstream) problems.push({ line: e.line, reason: 'the upstream value is empty' });
    else if (!service) problems.push({ line: e.line, reason: `the service value for "${upstream}" is empty` });
    else {
      const key = kind === 'facilities' ? facilityKey(upstream) : upstream;
      const before = maps[kind].get(key);
      if (before === undefined) {
        maps[kind].set(key, service);
        lineOf.set(`${kind} ${key}`, e.line);
      } else if (before !== service) {
        problems.push({
          line: e.line,
          reason: `"${upstream}" is mapped again, to "${service}" (line ${lineOf.get(`${kind} ${key}`)} maps it to "${before}")`,
        });
      }
    }
  }
  return { mapping: { file, products: maps.products, facilities: maps.facilities }, problems };
}

function readText(file: string): string | string[] {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (code ?? 'unreadable');
    return [`MAPPING_FILE: ${file} cannot be read (${why})`];
  }
}

/**
 * Reads and checks MAPPING_FILE: CSV (`kind,upstream,service` lines) or JSON (`{ "products": {...}, "facilities":
 * {...} }`), by its extension. Answers the mapping, or one line per problem naming the file and the line.
 */
export function loadMapping(file: string): { mapping: Mapping } | { problems: string[] } {
  const ext = extname(file).toLowerCase();
  if (ext !== '.csv' && ext !== '.json')
    return { problems: [`MAPPING_FILE: ${file} must end in .csv or .json (the extension says how it is read)`] };
  const text = readText(file);
  if (Array.isArray(text)) return { problems: text };
  const parsed = ext === '.csv' ? parseMappingCsv(text) : parseMappingJson(text);
  const built = buildMapping(file, parsed.entries);
  const all = [...parsed.problems, ...built.problems].sort((a, b) => a.line - b.line);
  if (all.length === 0) return { mapping: built.mapping };
  const lines = all.slice(0, MAX_PROBLEMS).map((p) => `MAPPING_FILE: ${file} line ${p.line}: ${p.reason}`);
  if (all.length > MAX_PROBLEMS) lines.push(`MAPPING_FILE: ${file}: and ${all.length - MAX_PROBLEMS} more problems`);
  return { problems: lines };
}
