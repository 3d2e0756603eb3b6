import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Issue 23 item 3: the dashboard's HTML comes from JSX, escaped by the renderer; none is built from strings. */
const ROOT = join(import.meta.dirname, '../../src/dashboard');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const TAG = /<\/?[a-z][a-z0-9-]*(\s[^<>]*)?\/?>|<!doctype/i;
const TEMPLATE = /`(?:\\.|[^`\\])*`/g;
const QUOTED = /'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g;
/** What writes markup past the renderer, or escapes by hand. */
const RAW_HTML = /\besc\(|innerHTML|outerHTML|insertAdjacentHTML|dangerouslySetInnerHTML|document\.write/;

/** Comments may show markup; code may not. (`//` after a space or at a line's start: not the one in 'http://'.) */
const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');

/** The string literals of a source text (comments left out) that hold an HTML tag. */
function markupStrings(source: string): string[] {
  const code = withoutComments(source);
  return [...(code.match(TEMPLATE) ?? []), ...(code.match(QUOTED) ?? [])].filter((s) => TAG.test(s));
}

describe('the dashboard source', () => {
  const sources = filesUnder(ROOT)
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

  it('finds markup in strings when there is some (the check itself)', () => {
    expect(markupStrings('const a = `<p>${x}</p>`;')).toHaveLength(1);
    expect(markupStrings('const b = \'<td class="n">\' + n;')).toHaveLength(1);
    expect(markupStrings('const c = `/jobs/${id}`; const d = "a < b"; // `<p>` in a comment')).toEqual([]);
  });

  it('builds no HTML from strings: pages are JSX, and the only markup in a string is the doctype', () => {
    expect(sources.length).toBeGreaterThan(10);
    const found = sources.flatMap(({ file, text }) => markupStrings(text).map((s) => `${file}: ${s}`));
    expect(found).toEqual(["layout.tsx: '<!doctype html>'"]);
  });

  it('neither escapes by hand nor writes raw HTML, on the server or in the browser code', () => {
    expect(sources.filter(({ text }) => RAW_HTML.test(text)).map((s) => s.file)).toEqual([]);
  });

  it('keeps the browser code in real files, not in strings', () => {
    expect(sources.filter(({ text }) => /String\.raw`/.test(text)).map((s) => s.file)).toEqual([]);
    expect(
      filesUnder(join(ROOT, 'browser'))
        .map((f) => relative(ROOT, f))
        .sort(),
    ).toContain('browser/flow-charts.ts');
  });
});
