/**
 * Holds docs to the repository's files: every Markdown link, every path in a code span and every path written in
 * prose (`docs/push.md`, `src/cli/program.ts`, `service-spec.md`) must name a file or folder of the checkout, inside
 * it. A reader of the repository has nothing else. Each problem is one line, `file:line: what is wrong; what to fix`.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Page } from './docs-drift.js';

/** Folders a build or a tool makes, which a checkout lacks until then: named freely. */
const MADE = ['dist', 'node_modules', 'tools/lint', 'coverage', 'test-results'];

/** The repository's top-level folders whose paths prose names without quotes. */
const PROSE_ROOTS = ['docs', 'src', 'jobs', 'config', 'test', 'bench', 'scripts', '.ci', 'tools'];

const LINK = /(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|!\[[^\]]*\]\(([^)\s]+)\)/g;
const SPAN = /`([^`]+)`/g;
/** A path in prose: under a top-level folder, going up (`../x`), or a Markdown file's name. */
const PROSE_PATH = new RegExp(
  `(?<![\\w/.@:-])((?:\\.\\./)+[\\w.-][\\w./-]*|(?:${PROSE_ROOTS.map((r) => r.replace('.', '\\.')).join('|')})/[\\w./-]*[\\w/]|[\\w./-]*[\\w-]\\.md)(?![\\w/])`,
  'g',
);

/** Whether a code span is a path to check: a file name ending `.md`, going up, or under a top-level entry. */
function spanPath(span: string, topLevel: (name: string) => boolean): string | undefined {
  const s = span.trim().replace(/:\d+(?::\d+)?$/, '');
  if (/\s|[{}<>*$|?=,]/.test(s) || s.startsWith('/') || /^[a-z][a-z+.-]*:/i.test(s)) return undefined;
  if (s === '..' || s.startsWith('../') || s.startsWith('./')) return s;
  if (s.endsWith('.md')) return s;
  const first = s.split('/')[0]!;
  return s.includes('/') && topLevel(first) ? s : undefined;
}

function isMade(rel: string): boolean {
  return MADE.some((m) => rel === m || rel.startsWith(`${m}/`));
}

/**
 * What is wrong with a path a page names, or undefined when it names something of the checkout. A link is
 * resolved from the page's folder, as a Markdown viewer does; a path in code or prose from the page's folder or
 * the repository's root, whichever names something.
 */
function pathProblem(root: string, page: string, target: string, isLink: boolean, exists: (abs: string) => boolean): string | undefined {
  const clean = decodeURI(target.replace(/[#?].*$/, ''));
  if (clean === '') return undefined;
  const bases = isLink ? [dirname(join(root, page))] : [dirname(join(root, page)), root];
  const tried = bases.map((b) => resolve(b, clean));
  const inside = tried.filter((abs) => {
    const rel = relative(root, abs);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
  if (inside.length === 0)
    return `points outside the repository; say what the reader needs in a page of docs/, or link one (docs/service.md, docs/records.md, docs/reference.md)`;
  if (inside.some((abs) => isMade(relative(root, abs)) || exists(abs))) return undefined;
  return `no such file or folder in the repository; link the page that says it (docs/service.md, docs/records.md, docs/reference.md), or fix the path`;
}

/** Every link, code-span path and prose path of the pages that names no file of the checkout at `root`. */
export function docPathProblems(pages: readonly Page[], root: string, exists: (abs: string) => boolean = existsSync): string[] {
  const topLevel = (name: string) => name === '..' || exists(join(root, name));
  const problems: string[] = [];
  for (const page of pages) {
    let fence = false;
    page.text.split('\n').forEach((line, i) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fence = !fence;
        return;
      }
      if (fence) return;
      const found: { path: string; link: boolean }[] = [];
      for (const m of line.matchAll(LINK)) {
        const target = (m[1] ?? m[2])!;
        if (!/^(?:[a-z][a-z+.-]*:|#|\/\/)/i.test(target)) found.push({ path: target, link: true });
      }
      const prose = line.replace(LINK, ' ').replace(SPAN, (_, span: string) => {
        const p = spanPath(span, topLevel);
        if (p) found.push({ path: p, link: false });
        return ' ';
      });
      for (const m of prose.matchAll(PROSE_PATH)) found.push({ path: m[1]!.replace(/[.]+$/, ''), link: false });
      for (const f of found) {
        const problem = pathProblem(root, page.file, f.path, f.link, exists);
        if (problem) problems.push(`${page.file}:${i + 1}: \`${f.path}\` ${problem}`);
      }
    });
  }
  return problems;
}
