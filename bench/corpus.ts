import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const corpusDir = process.env.ADSNAP_CORPUS ?? path.resolve(repoRoot, '../shared/corpus');
export const hasCorpus = existsSync(path.join(corpusDir, 'MANIFEST.tsv'));

/**
 * Resident memory of a process and of every process under it, summed, in MB (Linux): `adsnap crawl`
 * crawls in a child process and commits in its own (src/cli/crawl-process.ts), and a bench may
 * start it under /usr/bin/time. Null elsewhere or once it has exited.
 */
export function treeRssOf(pid: number): number | null {
  const own = rssOf(pid);
  if (own === null) return null;
  let sum = own;
  for (const child of childrenOf(pid)) sum += treeRssOf(child) ?? 0;
  return sum;
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/** Resident memory of a process in MB from /proc (Linux); null elsewhere or once it has exited. */
export function rssOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}
