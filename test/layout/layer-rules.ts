/**
 * The layering as docs/architecture.md writes it ("Folders: what each owns and what it may import"), read from the
 * table itself so the doc and the rule cannot drift, and checked against an import graph.
 */

/** One row of the table: the folders it is about (a `*` stands for any one folder name) and what they may import. */
export interface LayerRow {
  folders: string[];
  /** Folders (ending in `/`) and files it may import, beyond its own files and sub-folders. */
  mayImport: string[];
  /** `anything`: no rule. */
  anything: boolean;
}

const HEADING = '## Folders: what each owns and what it may import';
/** The words of a "may import" cell for the folders of the row that owns "the shared leaves". */
const LEAVES = 'the shared leaves';

/** The paths a cell names in backticks: folders get their trailing `/`, files (`.ts`) stay as they are. */
function pathsIn(cell: string): string[] {
  return [...cell.matchAll(/`([a-z][\w./*-]*)`/g)]
    .map((m) => m[1]!)
    .filter((p) => p.includes('/'))
    .map((p) => (p.endsWith('.ts') || p.endsWith('/') ? p : `${p}/`));
}

/** The rows of the folders' table of an architecture document. Throws when it has none (the heading moved). */
export function parseLayerTable(markdown: string): LayerRow[] {
  const start = markdown.indexOf(HEADING);
  if (start < 0) throw new Error(`no "${HEADING}" section`);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const table = lines.slice(first).filter((_, i, all) => all.slice(0, i + 1).every((l) => l.startsWith('|')));
  const cells = table.slice(2).map((l) => l.replace(/^\|\s*|\s*\|$/g, '').split(/\s\|\s/));
  const leaves = cells.find((c) => c[1]?.startsWith(LEAVES));
  const leafFolders = leaves ? pathsIn(leaves[0]!) : [];
  const rows = cells.map((c) => {
    const may = c[c.length - 1]!;
    return {
      folders: pathsIn(c[0]!),
      mayImport: [...pathsIn(may), ...(may.includes(LEAVES) ? leafFolders : [])],
      anything: may.trim() === 'anything',
    };
  });
  if (rows.length === 0) throw new Error('the folders table has no rows');
  return rows;
}

const patternOf = (folder: string) => new RegExp(`^${folder.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]+')}`);

/** The row a file belongs to, and the folder it stands for: the longest folder of any row the file is under. */
export function rowOf(rows: readonly LayerRow[], file: string): { row: LayerRow; folder: string } | undefined {
  let best: { row: LayerRow; folder: string } | undefined;
  for (const row of rows)
    for (const f of row.folders) {
      const m = patternOf(f).exec(file);
      if (m && (!best || m[0].length > best.folder.length)) best = { row, folder: m[0] };
    }
  return best;
}

/** An import the table allows no exception for, named. */
export type Exception = readonly [file: string, target: string];

/**
 * Every import of the graph that its file's row does not allow, as `file -> target (rule)`: its row's folder and what
 * that row may import, or that no row covers the file.
 */
export function layerViolations(
  graph: ReadonlyMap<string, readonly string[]>,
  rows: readonly LayerRow[],
  exceptions: readonly Exception[] = [],
): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const own = rowOf(rows, file);
    for (const target of targets) {
      if (exceptions.some(([f, t]) => f === file && t === target)) continue;
      if (!own) {
        out.push(`${file} -> ${target} (no row of the table covers ${file})`);
        continue;
      }
      const { row, folder } = own;
      if (row.anything || target.startsWith(folder)) continue;
      if (row.mayImport.some((m) => (m.endsWith('/') ? patternOf(m).test(target) : m === target))) continue;
      out.push(`${file} -> ${target} (${row.folders.join(', ')} may import: ${row.mayImport.join(', ') || 'nothing'})`);
    }
  }
  return out;
}
