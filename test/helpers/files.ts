import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** Every file under `dir`, relative with `/` separators, sorted ([] when `dir` does not exist). */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(dir, p).split(path.sep).join('/'));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}
