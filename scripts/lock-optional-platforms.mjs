// Records platform-specific optional packages that this machine's registry mirror cannot serve
// (e.g. DuckDB's darwin/win32/arm64 bindings) in package-lock.json, marked `optional` with their
// os/cpu/libc, so `npm ci` accepts the lockfile and skips them on other platforms.
// Run after any `npm install` that rewrites the lockfile: node scripts/lock-optional-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const platform = (name) => {
  const m = /-(darwin|linux|win32)-(x64|arm64)(-musl)?$/.exec(name);
  if (!m) return null;
  return { os: [m[1]], cpu: [m[2]], ...(m[1] === 'linux' ? { libc: [m[3] ? 'musl' : 'glibc'] } : {}) };
};
let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const at = `node_modules/${dep}`;
    const p = platform(dep);
    if (lock.packages[at] || !p) continue;
    lock.packages[at] = { version, ...p, license: pkg.license, optional: true };
    added++;
    void key;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`package-lock.json: ${added} platform-specific optional packages recorded`);
