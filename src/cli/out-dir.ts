import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './usage-error.js';

/**
 * `--out DIR` must be a directory, or a path where one can be made: a file there, or a file on
 * the way to it, is a usage error (exit 2) found before anything is created, rather than a raw
 * ENOTDIR or EEXIST from deep inside the run.
 */
export async function checkOutDir(dir: string, flag = '--out'): Promise<void> {
  const target = path.resolve(dir);
  for (let p = target; ; p = path.dirname(p)) {
    try {
      if ((await stat(p)).isDirectory()) return;
      throw new UsageError(p === target ? `${flag} ${dir} is a file, not a directory` : `${flag} ${dir}: ${p} is a file, so the directory cannot be made`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(p) === p) throw err;
    }
  }
}
