import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

/**
 * The adsnap package directory (where package.json, sql/ and data-samples/ live), found by
 * walking up from this module: the same answer from src/ (tsx, vitest) and from dist/src/.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'schemas'))) return (cached = dir);
    const up = path.dirname(dir);
    if (up === dir) throw new Error('adsnap: cannot find the package root (package.json) above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}
