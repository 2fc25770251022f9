import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const corpusDir = process.env.ADSNAP_CORPUS ?? path.resolve(repoRoot, '../shared/corpus');
export const hasCorpus = existsSync(path.join(corpusDir, 'MANIFEST.tsv'));

/** Resident memory of a process in MB from /proc (Linux); null elsewhere or once it has exited. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}
