import type { MappingEntry, MappingProblem } from './mapping-entry.js';

const HEADER = 'kind,upstream,service';

/** The fields of one CSV line (RFC 4180 quotes: `"a, b"`, `""` for a quote); a string when a quote is left open. */
function fieldsOf(line: string): string[] | string {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return 'a quoted value is not closed';
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      const rest = line.indexOf(',', i);
      if (line.slice(i, rest < 0 ? undefined : rest).trim()) return 'text after a closing quote';
      i = rest < 0 ? line.length : rest;
    } else {
      const end = line.indexOf(',', i);
      field = line.slice(i, end < 0 ? undefined : end);
      i = end < 0 ? line.length : end;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

/**
 * A mapping CSV: one `kind,upstream,service` line per mapping (kind: product or facility), an optional header
 * line, blank lines and `#` comments. A line with another number of columns is a problem (no value is echoed).
 */
export function parseMappingCsv(text: string): { entries: MappingEntry[]; problems: MappingProblem[] } {
  const entries: MappingEntry[] = [];
  const problems: MappingProblem[] = [];
  let seenData = false;
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const line = i + 1;
      if (!raw.trim() || raw.trimStart().startsWith('#')) return;
      if (!seenData && raw.replace(/\s/g, '').toLowerCase() === HEADER) return;
      seenData = true;
      const fields = fieldsOf(raw);
      if (typeof fields === 'string') return void problems.push({ line, reason: fields });
      if (fields.length !== 3)
        return void problems.push({ line, reason: `has ${fields.length} column${fields.length === 1 ? '' : 's'}; expected 3: ${HEADER}` });
      const [kind, upstream, service] = fields as [string, string, string];
      entries.push({ line, kind, upstream, service });
    });
  return { entries, problems };
}
