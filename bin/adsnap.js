#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `npm ci` via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('adsnap: not built yet; run `npm run build` (or `npm ci`) first\n');
  process.exit(1);
}
const { main: run } = await import(main.href);
process.exitCode = await run(process.argv.slice(2));
