import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../../config/read-config.js';
import { isModuleSpec, moduleSpecProblem, type TransformSetting } from '../../config/transforms-setting.js';
import { messageOf } from '../errors/message-of.js';
import type { StreamName } from '../records/stream-name.js';
import type { TransformFn } from '../records/transform-fn.js';
import type { Transform } from './transform.js';

/** What loading a transform needs of the kinds: their streams and built-in transforms. */
export interface TransformKind {
  stream: StreamName;
  /** Its built-in transforms, by the name TRANSFORMS sets them with (the kind's `record.transforms`). */
  record: { transforms?: Readonly<Record<string, TransformFn>> };
}

/** The built-in transforms of a kind, for a message. */
function builtIns(kind: TransformKind): string {
  const names = Object.keys(kind.record.transforms ?? {});
  return names.length ? `built in: ${names.join(', ')}` : `${kind.stream} has none built in; name an ES module (.mjs or .js)`;
}

/** A module's default export, if it is a function; else why not. */
async function moduleFn(spec: string, cwd: string): Promise<TransformFn | string> {
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(resolve(cwd, spec)).href)) as { default?: unknown };
  } catch (err) {
    return `${spec} could not be loaded (${messageOf(err).split('\n')[0]})`;
  }
  if (typeof mod.default !== 'function') return `${spec} has no default export that is a function (payload, context) => record(s)`;
  return mod.default as TransformFn;
}

/** One setting as a transform, or its problem line. */
async function loadOne(setting: TransformSetting, kinds: readonly TransformKind[], cwd: string): Promise<Transform | string> {
  const kind = kinds.find((k) => k.stream === setting.stream);
  const streams = kinds.map((k) => k.stream).join(', ');
  if (!kind) return `TRANSFORMS: unknown stream "${setting.stream}": use one of ${streams}`;
  if (setting.module) {
    const fn = await moduleFn(setting.spec, cwd);
    return typeof fn === 'string' ? `TRANSFORMS: ${kind.stream}: ${fn}` : { stream: kind.stream, name: setting.spec, fn };
  }
  const fn = kind.record.transforms?.[setting.spec];
  if (!fn) return `TRANSFORMS: ${kind.stream}: no transform named "${setting.spec}" (${builtIns(kind)})`;
  return { stream: kind.stream, name: setting.spec, fn };
}

/**
 * The transforms of the settings (TRANSFORMS, or `import --transform`), each checked against the kinds: a known
 * stream, a built-in name its kind declares, a module that loads and whose default export is a function. Throws a
 * ConfigError with one line per problem (the program stops at start, exit 2). Module paths are from `cwd`.
 */
export async function loadTransforms(
  settings: readonly TransformSetting[],
  kinds: readonly TransformKind[],
  cwd = process.cwd(),
): Promise<Map<StreamName, Transform>> {
  const loaded = await Promise.all(settings.map((s) => loadOne(s, kinds, cwd)));
  const problems = loaded.filter((t): t is string => typeof t === 'string');
  if (problems.length) throw new ConfigError(problems);
  return new Map((loaded as Transform[]).map((t) => [t.stream, t]));
}

/** What choosing a store's transform needs of a kind: its stream, and the stores it may be read from. */
export interface StoreKind {
  stream: StreamName;
  feed?: { stores?: Readonly<Record<string, string>> };
}

/**
 * TRANSFORMS, and for a store that is the source of a stream (`store`: its name, e.g. `shopify` with SHOPIFY_STORE_URL),
 * that stream's store transform when TRANSFORMS sets none: its pushes are the store's webhooks. TRANSFORMS setting
 * another for it is a ConfigError: the same order would come as two records, under two orderIds.
 */
export function transformSettingsOf(
  settings: readonly TransformSetting[],
  kinds: readonly StoreKind[],
  store: string | undefined,
): TransformSetting[] {
  const out = [...settings];
  if (!store) return out;
  for (const kind of kinds) {
    const spec = kind.feed?.stores?.[store];
    if (!spec) continue;
    const set = out.find((t) => t.stream === kind.stream);
    if (!set) out.push({ stream: kind.stream, spec, module: false });
    else if (set.spec !== spec)
      throw new ConfigError([
        `TRANSFORMS: ${kind.stream}=${set.spec}: with SHOPIFY_STORE_URL the ${kind.stream} stream's pushes are the ` +
          `store's webhooks, read by ${spec}; set ${kind.stream}=${spec} or leave it out`,
      ]);
  }
  return out;
}

/** The setting of `import --transform <name|path>` for one stream, its file checked as TRANSFORMS' are. */
export function oneOffSetting(stream: StreamName, spec: string, cwd = process.cwd()): TransformSetting {
  const module = isModuleSpec(spec);
  const problem = module ? moduleSpecProblem(spec, cwd) : undefined;
  if (problem) throw new ConfigError([`--transform: ${problem}`]);
  return { stream, spec, module };
}
