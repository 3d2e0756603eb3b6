import type { MappingEntry, MappingProblem } from './mapping-entry.js';

/** A key of a JSON object, where it stands, and its value when that is a string. */
interface KeyToken {
  key: string;
  line: number;
  /** 1 for the top object's keys, 2 for the keys of the objects inside it, ... */
  depth: number;
  /** The key the enclosing object stands under (undefined at the top). */
  parent?: string;
  value?: string;
}

/** Line and column of a character offset. */
function lineAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/**
 * Every key of a valid JSON text with its line, in order, duplicates included (JSON.parse keeps only the last
 * of a repeated key, so a key mapped twice could not be told otherwise).
 */
function scanKeys(text: string): KeyToken[] {
  const out: KeyToken[] = [];
  const open: Array<string | undefined> = [];
  let pending: KeyToken | undefined;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') line++;
    else if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      const s = JSON.parse(text.slice(start, i + 1)) as string;
      let j = i + 1;
      while (/\s/.test(text[j] ?? '')) j++;
      if (text[j] === ':') {
        pending = { key: s, line, depth: open.length, parent: open.at(-1) };
        out.push(pending);
      } else if (pending) {
        pending.value = s;
        pending = undefined;
      }
    } else if (c === '{' || c === '[') {
      open.push(pending?.key);
      pending = undefined;
    } else if (c === '}' || c === ']') open.pop();
    else if (c === ',') pending = undefined;
  }
  return out;
}

const SECTIONS = new Set(['products', 'facilities']);

/**
 * A mapping JSON: `{ "products": { "SKU-9": "MUG-BLUE" }, "facilities": { "WH1": "Main Warehouse" } }`. Invalid
 * JSON is one problem at its line (the parser's own message is not repeated: it quotes the text).
 */
export function parseMappingJson(text: string): { entries: MappingEntry[]; problems: MappingProblem[] } {
  const body = text.replace(/^\uFEFF/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    const where = at ? lineAt(body, Number(at[1])) : undefined;
    const lineNo = where?.line ?? /line (\d+)/.exec((err as Error).message)?.[1];
    return {
      entries: [],
      problems: [{ line: Number(lineNo ?? 1), reason: `is not valid JSON${where ? ` (column ${where.column})` : ''}` }],
    };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return {
      entries: [],
      problems: [{ line: 1, reason: 'must be a JSON object: { "products": { "<upstream>": "<service>" }, "facilities": { ... } }' }],
    };
  }
  const entries: MappingEntry[] = [];
  const problems: MappingProblem[] = [];
  const sections = parsed as Record<string, unknown>;
  for (const t of scanKeys(body)) {
    if (t.depth === 1) {
      if (!SECTIONS.has(t.key)) problems.push({ line: t.line, reason: 'unknown kind: the top keys must be products or facilities' });
      else if (!sections[t.key] || typeof sections[t.key] !== 'object' || Array.isArray(sections[t.key])) {
        problems.push({ line: t.line, reason: `${t.key} must be an object of "<upstream>": "<service>" pairs` });
      }
    } else if (t.depth === 2 && t.parent !== undefined && SECTIONS.has(t.parent)) {
      if (t.value === undefined) problems.push({ line: t.line, reason: `the service value for "${t.key}" must be a text` });
      else entries.push({ line: t.line, kind: t.parent, upstream: t.key, service: t.value });
    }
  }
  return { entries, problems };
}
