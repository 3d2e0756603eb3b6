// Part of `npm run build`, after tsc: bundles the dashboard's browser code and stylesheet (esbuild) into
// dist/src/dashboard/assets/, where a built install serves them from. From source (demo, tests), the dashboard
// bundles them in memory at start instead (src/dashboard/dashboard-assets.ts).
import { fileURLToPath } from 'node:url';
import { writeAssets } from '../dist/src/dashboard/dashboard-assets.js';

const sources = fileURLToPath(new URL('../src/dashboard/browser/', import.meta.url));
const out = fileURLToPath(new URL('../dist/src/dashboard/assets/', import.meta.url));
await writeAssets(sources, out);
console.log(`dashboard assets written to ${out}`);
