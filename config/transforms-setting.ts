import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';

/** One stream's transform as TRANSFORMS sets it (docs/transforms.md); checked against the kinds when loaded. */
export interface TransformSetting {
  stream: string;
  /** A built-in transform's name, or the path of an ES module. */
  spec: string;
  /** Whether `spec` is a module's path (it has a `/` or ends in .mjs or .js) rather than a built-in's name. */
  module: boolean;
}

const MODULE_EXTENSIONS = ['.mjs', '.js'];

/** Whether a transform's spec names a module file rather than a built-in transform. */
export function isModuleSpec(spec: string): boolean {
  return spec.includes('/') || spec.includes('\\') || /\.[cm]?[jt]s$/i.test(spec);
}

/** A module spec's problem (another extension, no such file), or undefined; relative paths from the working folder. */
export function moduleSpecProblem(spec: string, cwd = process.cwd()): string | undefined {
  if (!MODULE_EXTENSIONS.includes(extname(spec).toLowerCase())) return `${spec} must be an ES module file (.mjs or .js)`;
  if (!existsSync(resolve(cwd, spec))) return `${spec}: no such file`;
  return undefined;
}

/**
 * TRANSFORMS, `stream=spec` pairs separated by commas, read without the kinds: the form, a stream set twice, and
 * a module file that is missing. One problem line each, naming the variable.
 */
export function parseTransforms(value: string | undefined, cwd?: string): { settings: TransformSetting[]; problems: string[] } {
  const settings: TransformSetting[] = [];
  const problems: string[] = [];
  for (const raw of (value ?? '').split(',')) {
    const pair = raw.trim();
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const stream = eq < 0 ? '' : pair.slice(0, eq).trim();
    const spec = eq < 0 ? '' : pair.slice(eq + 1).trim();
    if (!stream || !spec) {
      problems.push(`TRANSFORMS: "${pair}" is not stream=transform (a built-in transform's name or an ES module's path)`);
      continue;
    }
    if (settings.some((s) => s.stream === stream)) {
      problems.push(`TRANSFORMS: ${stream} is given a transform twice; one per stream`);
      continue;
    }
    const module = isModuleSpec(spec);
    const problem = module ? moduleSpecProblem(spec, cwd) : undefined;
    if (problem) problems.push(`TRANSFORMS: ${stream}: ${problem}`);
    else settings.push({ stream, spec, module });
  }
  return { settings, problems };
}
