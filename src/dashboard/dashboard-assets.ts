import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';

/** What the pages load from the dashboard's own origin, under /assets/. */
export const ASSET_NAMES = ['flow-charts.js', 'dashboard.css'] as const;
export type AssetName = (typeof ASSET_NAMES)[number];
export type DashboardAssets = Record<AssetName, string>;

/** Built by `npm run build` (scripts/build-dashboard-assets.mjs) next to this module in dist/. */
const PREBUILT = fileURLToPath(new URL('./assets/', import.meta.url));
/** The browser code and stylesheet, present when running from source (demo, tests, `npm run cli`). */
const SOURCES = fileURLToPath(new URL('./browser/', import.meta.url));

/**
 * Bundles browser/flow-charts.ts (with uPlot) and browser/dashboard.css (with uPlot's styles) with esbuild. esbuild
 * is a dev dependency, imported only here: a built install reads the files `npm run build` wrote instead.
 */
export async function buildAssets(sourceDir: string = SOURCES): Promise<DashboardAssets> {
  const { build } = await import('esbuild').catch((err: unknown) => {
    const why = 'bundling them from the sources needs esbuild, a dev dependency: run `npm ci`, or run the built program (`npm run build`)';
    throw new Error(`dashboard assets: ${why}`, { cause: err });
  });
  const out = await build({
    entryPoints: [join(sourceDir, 'flow-charts.ts'), join(sourceDir, 'dashboard.css')],
    bundle: true,
    write: false,
    outdir: 'assets',
    format: 'iife',
    target: ['chrome109', 'firefox115', 'safari16'],
    minify: true,
    charset: 'utf8',
    logLevel: 'silent',
  });
  const files = new Map(out.outputFiles.map((f) => [basename(f.path), f.text]));
  return Object.fromEntries(
    ASSET_NAMES.map((name) => {
      const text = files.get(name);
      if (text === undefined) throw new Error(`dashboard assets: esbuild wrote no ${name}`);
      return [name, text];
    }),
  ) as DashboardAssets;
}

/** Writes the bundled assets into `outDir` (the build step). */
export async function writeAssets(sourceDir: string, outDir: string): Promise<void> {
  const assets = await buildAssets(sourceDir);
  await mkdir(outDir, { recursive: true });
  await Promise.all(ASSET_NAMES.map((name) => writeFile(join(outDir, name), assets[name])));
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

async function readPrebuilt(): Promise<DashboardAssets> {
  const texts = await Promise.all(ASSET_NAMES.map((name) => readFile(join(PREBUILT, name), 'utf8')));
  return Object.fromEntries(ASSET_NAMES.map((name, i) => [name, texts[i]])) as DashboardAssets;
}

let loading: Promise<DashboardAssets> | undefined;

/** The assets, once per process: the prebuilt files when there are, else built in memory from the sources. */
export function loadAssets(): Promise<DashboardAssets> {
  loading ??= (async () => {
    if (await exists(join(PREBUILT, ASSET_NAMES[0]))) return readPrebuilt();
    if (await exists(SOURCES)) return buildAssets();
    throw new Error(`dashboard assets: none in ${PREBUILT} and no sources to build them from; run npm run build`);
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

const TYPES: Record<AssetName, string> = { 'flow-charts.js': 'application/javascript', 'dashboard.css': 'text/css' };

/** GET /assets/<name>: served to signed-out visitors too (the login page has the stylesheet); nothing in them is secret. */
export function assetRoutes(assets: DashboardAssets): Router {
  const r = express.Router();
  for (const name of ASSET_NAMES) {
    r.get(`/assets/${name}`, (_req, res) => {
      res.type(TYPES[name]).set('cache-control', 'no-cache').send(assets[name]);
    });
  }
  return r;
}
