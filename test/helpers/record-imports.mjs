// Preloaded into a CLI child (NODE_OPTIONS=--import=...): writes the URL of every module it resolves to
// RECORD_IMPORTS_FILE, so a test can tell which modules a run loaded.
import { register } from 'node:module';

if (process.env.RECORD_IMPORTS_FILE)
  register('./record-imports-hooks.mjs', import.meta.url, { data: { file: process.env.RECORD_IMPORTS_FILE } });
