/**
 * The snapshot roots a reading command is given (`adsnap report ROOT…`, `adsnap sql ROOT…`, and
 * any later command that reads snapshots): checked before anything is opened or created, so that
 * a path that is no snapshot root at all (a typo, a file, an empty or unrelated directory) is a
 * usage error, exit 2 with one line naming the path, and no output directory is made (contract
 * §5; docs/reference/cli.md#exit-status). A root adsnap has started to write but holds no
 * complete run yet (a first night still running or failed) is a snapshot root: what to do with it
 * is the command's choice (the report says so on its page; `sql` fails with exit 1).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { tables } from '../../schemas/tables.js';

export type SnapshotRootState = 'complete' | 'started';

/** Exit 2 (exit-codes.ts): the command named no snapshot root; running it again cannot succeed. */
export class NotASnapshotRootError extends Error {
  readonly code = 'NOT_A_SNAPSHOT_ROOT';
}

/**
 * What adsnap writes in a root besides the table folders: run manifests (`_runs`, one JSON per
 * complete run), the staging area of a run in progress and its lock (`_staging`), the shard
 * exchange (`_shards`), the named-list cache (`_lists`), kept bodies (`_bodies`) and the derived tables (`_derived`).
 */
const ADSNAP_ENTRIES: ReadonlySet<string> = new Set(['_runs', '_staging', '_shards', '_lists', '_bodies', '_derived', ...Object.keys(tables)]);

const WHAT = 'a snapshot root is the --out directory of `adsnap crawl`';

/**
 * Throws NotASnapshotRootError for the first ROOT that does not exist, is not a directory, or
 * holds nothing adsnap writes; else says of each root whether it holds a complete run (a
 * manifest in ROOT/_runs) or only the start of one.
 */
export function checkSnapshotRoots(roots: readonly string[]): SnapshotRootState[] {
  return roots.map((root) => {
    const entries = directoryEntries(root);
    if (entries === null) throw new NotASnapshotRootError(`${root}: no such directory (${WHAT})`);
    if (entries === 'file') throw new NotASnapshotRootError(`${root} is a file, not a snapshot root (${WHAT})`);
    if (entries.length === 0) throw new NotASnapshotRootError(`${root} is an empty directory, not a snapshot root (${WHAT})`);
    if (!entries.some((e) => ADSNAP_ENTRIES.has(e))) {
      throw new NotASnapshotRootError(`${root} is not a snapshot root: it holds no run manifest (_runs/*.json) and no table adsnap writes (${WHAT})`);
    }
    const runs = directoryEntries(path.join(root, '_runs'));
    return Array.isArray(runs) && runs.some((f) => f.endsWith('.json')) ? 'complete' : 'started';
  });
}

/** The names in a directory; 'file' when the path is something else; null when nothing is there. */
function directoryEntries(dir: string): string[] | 'file' | null {
  try {
    if (!statSync(dir).isDirectory()) return 'file';
    return readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * checkSnapshotRoots, for a command that needs a complete run in every ROOT (`derive`, `verify`):
 * a root adsnap has started to write but holds no run manifest yet is a usage error too.
 */
export function checkCompleteSnapshotRoots(roots: readonly string[]): void {
  checkSnapshotRoots(roots).forEach((state, i) => {
    if (state !== 'complete') throw new NotASnapshotRootError(`${roots[i]} holds no complete run yet (no run manifest in ${path.join(roots[i]!, '_runs')}): nothing to read`);
  });
}
