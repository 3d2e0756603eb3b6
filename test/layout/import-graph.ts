import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Every .ts and .tsx file under these folders (relative to the root), sorted. */
export function sourceFiles(folders: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if ((name.endsWith('.ts') || name.endsWith('.tsx')) && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const f of folders) walk(f);
  return out.sort();
}

/** `from '...'`, `import('...')` and `import '...'`: static, type-only and dynamic imports, and re-exports. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/**
 * The relative files a file imports (static, type-only and dynamic imports, and re-exports). Read from the text:
 * the TypeScript of this project (7, native) has no compiler API to ask.
 */
export function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(IMPORT)]
    .map((m) => m[1]!)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => relative(root, resolve(root, dirname(file), spec)).replace(/\.js$/, '.ts'))
    .map((t) => (t.endsWith('.ts') && !existsSync(join(root, t)) && existsSync(join(root, `${t}x`)) ? `${t}x` : t));
}

/** The import graph of the files under these folders: file → the files of the graph it imports. */
export function importGraph(folders: readonly string[]): Map<string, string[]> {
  const files = sourceFiles(folders);
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f).filter((t) => known.has(t))]));
}

/** Every cycle of the graph (one per strongly connected component of more than one file, or a file importing itself). */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}
