import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/**
 * Temporary directories for one test file, all removed when the file's tests end. Call at the
 * top level of the test file (it registers an afterAll hook there).
 */
export function useTempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(path.join(tmpdir(), `adsnap-${prefix}-`));
    made.push(dir);
    return dir;
  };
}
