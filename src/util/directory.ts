import { statSync } from 'node:fs';

/** Whether `p` names an existing directory (false for a file, a missing path or one that cannot be read). */
export function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
