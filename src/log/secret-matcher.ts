/**
 * Finds every learned secret form in a text in one pass over it, and replaces each with the redaction mark: an
 * Aho–Corasick automaton over UTF-16 code units (a secret with any character, emoji included, is the same code units
 * in the text), kept in typed arrays (about 14 bytes a character of the forms).
 *
 * Forms are learned while the program runs (accounts added, credentials rotated): each `add` builds a small automaton
 * of the new forms only, and automata of like size are merged (rebuilt as one) so that each is less than half the one
 * before it: learning n characters costs O(n log n) in all, a text is scanned by at most log2(n) automata, and no
 * `add` rebuilds everything unless what it adds is as large as what came before.
 *
 * Matches: where matches overlap, the text they cover together is one mark (a secret inside another, or one a
 * prefix of another: the longest wins; two that overlap partly: neither shows any part of itself); matches that
 * only touch get a mark each.
 */

/** What a secret is replaced by, in log lines and wherever else a text is redacted. */
export const REDACTION_MARK = '[REDACTED]';

/** One immutable automaton of a set of forms. Nodes are numbered breadth-first, so a node's children are consecutive. */
class Automaton {
  constructor(
    /** The code unit on the edge into each node. */
    private readonly unit: Uint16Array,
    /** The first child of each node; the children of node v are first[v] .. first[v + 1] - 1, sorted by unit. */
    private readonly first: Int32Array,
    /** The longest proper suffix of the node's string that is a node (Aho–Corasick's failure link). */
    private readonly fail: Int32Array,
    /** The length of the longest form that ends at this node (the node's string's longest suffix that is a form), or 0. */
    private readonly out: Int32Array,
    /** Code units of the forms it holds: what merging is decided by. */
    readonly size: number,
    readonly forms: readonly string[],
  ) {}

  /** The child of node v along code unit c, or -1. */
  child(v: number, c: number): number {
    let lo = this.first[v]!;
    let hi = this.first[v + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const u = this.unit[mid]!;
      if (u === c) return mid;
      if (u < c) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Appends [start, end) of the longest form ending at each position of the text where one ends. */
  scan(text: string, hits: number[]): void {
    let v = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let next = this.child(v, c);
      while (next < 0 && v !== 0) {
        v = this.fail[v]!;
        next = this.child(v, c);
      }
      v = next < 0 ? 0 : next;
      const len = this.out[v]!;
      if (len > 0) hits.push(i + 1 - len, i + 1);
    }
  }

  static build(forms: readonly string[]): Automaton {
    const sorted = [...forms].sort();
    const trie = buildTrie(sorted);
    const order = breadthFirst(trie);
    return linked(trie, order, forms);
  }
}

/** A trie in the order its nodes were made: each node's parent, unit and (when a form ends there) the form's length. */
interface Trie {
  count: number;
  parent: Int32Array;
  unit: Uint16Array;
  ends: Int32Array;
}

/** The trie of forms sorted by code unit: each form shares its common prefix with the one before it. */
function buildTrie(sorted: readonly string[]): Trie {
  const capacity = sorted.reduce((n, f) => n + f.length, 1);
  const t: Trie = { count: 1, parent: new Int32Array(capacity), unit: new Uint16Array(capacity), ends: new Int32Array(capacity) };
  const path: number[] = [0];
  let previous = '';
  for (const form of sorted) {
    let common = 0;
    while (common < form.length && common < previous.length && form.charCodeAt(common) === previous.charCodeAt(common)) common++;
    for (let d = common; d < form.length; d++) {
      const node = t.count++;
      t.parent[node] = path[d]!;
      t.unit[node] = form.charCodeAt(d);
      path[d + 1] = node;
    }
    t.ends[path[form.length]!] = form.length;
    previous = form;
  }
  return t;
}

/**
 * The trie's nodes breadth-first, each node's children together and by unit. Children were made in the order of
 * their units (the forms were sorted), so a stable grouping by parent keeps that order.
 */
function breadthFirst(t: Trie): Int32Array {
  const start = new Int32Array(t.count + 1);
  for (let v = 1; v < t.count; v++) start[t.parent[v]! + 1]!++;
  for (let v = 0; v < t.count; v++) start[v + 1]! += start[v]!;
  const children = new Int32Array(Math.max(1, t.count - 1));
  const fill = start.slice(0, t.count);
  for (let v = 1; v < t.count; v++) children[fill[t.parent[v]!]!++] = v;
  const order = new Int32Array(t.count);
  let tail = 1;
  for (let head = 0; head < t.count; head++) {
    const v = order[head]!;
    for (let k = start[v]!; k < start[v + 1]!; k++) order[tail++] = children[k]!;
  }
  return order;
}

/** The automaton: nodes renumbered breadth-first, then the failure links and outputs, parents before children. */
function linked(t: Trie, order: Int32Array, forms: readonly string[]): Automaton {
  const n = t.count;
  const id = new Int32Array(n);
  for (let k = 0; k < n; k++) id[order[k]!] = k;
  const unit = new Uint16Array(n);
  const parent = new Int32Array(n);
  const out = new Int32Array(n);
  const first = new Int32Array(n + 1);
  for (let k = 0; k < n; k++) {
    const old = order[k]!;
    unit[k] = t.unit[old]!;
    parent[k] = k === 0 ? 0 : id[t.parent[old]!]!;
    out[k] = t.ends[old]!;
  }
  // Children of node p start where the first node whose parent is p (or a later parent) is.
  let k = 1;
  for (let p = 0; p <= n; p++) {
    while (k < n && parent[k]! < p) k++;
    first[p] = p === n ? n : k;
  }
  const fail = new Int32Array(n);
  const a = new Automaton(unit, first, fail, out, forms.reduce((s, f) => s + f.length, 0), forms);
  for (let v = 1; v < n; v++) {
    const p = parent[v]!;
    if (p !== 0) fail[v] = fallBack(a, fail, fail[p]!, unit[v]!);
    if (out[fail[v]!]! > out[v]!) out[v] = out[fail[v]!]!;
  }
  return a;
}

/** From node f, the deepest node reached by code unit c through failure links (the root when none). */
function fallBack(a: Automaton, fail: Int32Array, f: number, c: number): number {
  for (;;) {
    const next = a.child(f, c);
    if (next >= 0) return next;
    if (f === 0) return 0;
    f = fail[f]!;
  }
}

/** The learned forms of a program's secrets, found and replaced in one pass over a text. */
export class SecretMatcher {
  private readonly known = new Set<string>();
  /** Automata, each under half the size of the one before it. */
  private levels: Automaton[] = [];

  constructor(forms: Iterable<string> = []) {
    this.add(forms);
  }

  /** Forms learned (empty strings are none). */
  get size(): number {
    return this.known.size;
  }

  /** Learns forms; those already known cost a look-up. Builds an automaton of the new ones and merges like sizes. */
  add(forms: Iterable<string>): void {
    const fresh: string[] = [];
    for (const f of forms) {
      if (f.length === 0 || this.known.has(f)) continue;
      this.known.add(f);
      fresh.push(f);
    }
    if (fresh.length === 0) return;
    let top = Automaton.build(fresh);
    for (let below = this.levels.at(-1); below && top.size * 2 > below.size; below = this.levels.at(-1)) {
      this.levels.pop();
      top = Automaton.build([...below.forms, ...top.forms]);
    }
    this.levels.push(top);
  }

  /** [start, end) of the text's stretches covered by learned forms, in order; overlapping matches are one stretch. */
  ranges(text: string): Array<[number, number]> {
    const hits: number[] = [];
    for (const level of this.levels) level.scan(text, hits);
    if (hits.length === 0) return [];
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i < hits.length; i += 2) pairs.push([hits[i]!, hits[i + 1]!]);
    pairs.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
    const merged: Array<[number, number]> = [pairs[0]!];
    for (const [s, e] of pairs.slice(1)) {
      const last = merged.at(-1)!;
      if (s < last[1]) last[1] = Math.max(last[1], e);
      else merged.push([s, e]);
    }
    return merged;
  }

  /** The text with each stretch of learned forms replaced by the mark; the same string when there is none. */
  redact(text: string, mark = REDACTION_MARK): string {
    const found = this.ranges(text);
    if (found.length === 0) return text;
    let out = '';
    let at = 0;
    for (const [s, e] of found) {
      out += text.slice(at, s) + mark;
      at = e;
    }
    return out + text.slice(at);
  }
}
