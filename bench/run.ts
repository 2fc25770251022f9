/**
 * `npm run bench [-- NAME…]`: runs every bench/*.bench.ts (or those whose name contains one of
 * the arguments) one after another, each printing its own table. Benchmarks are not tests.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts')).sort();
const chosen = files.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (chosen.length === 0) {
  console.error(`no benchmark matches ${filters.join(' ')}; have: ${files.join(', ')}`);
  process.exit(2);
}
console.log(`# adsnap benchmarks — ${new Date().toISOString().slice(0, 10)}, node ${process.version}`);
for (const f of chosen) {
  console.log(`\n## ${f.replace('.bench.ts', '')}`);
  const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== 'function') throw new Error(`${f} exports no run()`);
  await mod.run();
}
