/** Plain tables for bench and chaos output: one for a terminal, one for Markdown docs. */

type Cell = string | number;

const text = (c: Cell) => String(c).replace(/\s+/g, ' ');

/** A table with aligned columns and a rule under the head; numbers right-aligned. */
export function textTable(head: string[], rows: Cell[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => text(r[i] ?? '').length)));
  const line = (r: Cell[]) =>
    r
      .map((c, i) => (typeof c === 'number' ? text(c).padStart(widths[i]!) : text(c).padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** A GitHub Markdown table; numbers right-aligned. */
export function markdownTable(head: string[], rows: Cell[][]): string {
  const esc = (c: Cell) => text(c).replace(/\|/g, '\\|');
  const numeric = head.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'));
  return [
    `| ${head.map(esc).join(' | ')} |`,
    `|${numeric.map((n) => (n ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${head.map((_, i) => esc(r[i] ?? '')).join(' | ')} |`),
  ].join('\n');
}
