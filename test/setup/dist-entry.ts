import { fileURLToPath } from 'node:url';

/** The built program's entry point (`npm run build`; what `npx inventory-sync` runs), kept fresh by test/setup/dist-setup.ts. */
export const DIST_ENTRY = fileURLToPath(new URL('../../dist/src/bin/inventory-sync.js', import.meta.url));
