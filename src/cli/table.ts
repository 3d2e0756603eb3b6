import Table from 'cli-table3';

/** A borderless, colourless table: readable on a terminal and in a log file alike. */
export function renderTable(head: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const table = new Table({
    head,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  });
  for (const r of rows) table.push(r.map((c) => (c === null || c === undefined ? '' : String(c))));
  // cli-table3 pads the last column too; trailing spaces only get in the way of diffs and greps.
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

/** Shortens a cell to `max` characters. */
export function clip(text: string | null | undefined, max: number): string {
  if (!text) return '';
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
