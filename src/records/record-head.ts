import type { KeyedKind } from './record-kind.js';

/** Index of the quote that closes the string opening at `start`, or -1 when the text ends first. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34 /* " */) return i;
  }
  return -1;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

function jsonString(quoted: string): string | undefined {
  try {
    const v: unknown = JSON.parse(quoted);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The business key (orderId, countId, productId) of a record that cannot be parsed whole, read from the start of its
 * text: the string value of that field at the record's top level, when it comes before the text ends.
 */
export function keyInHead(kind: KeyedKind, head: string): string | undefined {
  const field = kind.record.keyField;
  let depth = 0;
  let expectKey = false;
  let topIsObject = false;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end < 0) return undefined;
      if (depth === 1 && topIsObject && expectKey) {
        const name = jsonString(head.slice(i, end + 1));
        let j = skipSpace(head, end + 1);
        if (head[j] !== ':') return undefined;
        j = skipSpace(head, j + 1);
        if (name === field) {
          const valueEnd = head[j] === '"' ? stringEnd(head, j) : -1;
          const value = valueEnd < 0 ? undefined : jsonString(head.slice(j, valueEnd + 1))?.trim();
          return value || undefined;
        }
        expectKey = false;
        i = j - 1;
        continue;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      depth++;
      if (depth === 1) {
        topIsObject = c === '{';
        expectKey = topIsObject;
      }
    } else if (c === '}' || c === ']') {
      depth--;
    } else if (c === ',' && depth === 1) {
      expectKey = topIsObject;
    }
  }
  return undefined;
}
