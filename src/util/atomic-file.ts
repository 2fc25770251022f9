/**
 * Files that are never seen half-written: the one way adsnap writes a checkpoint, a lock, a
 * shard's report or a run manifest. The bytes go to a temporary name beside the final one (a
 * rename stays on one file system), are fsynced, and only then take the final name, by rename(2)
 * (replace) or by link(2) (create, failing when the name exists: the run lock).
 */
import { randomBytes } from 'node:crypto';
import { open, rename } from 'node:fs/promises';
import path from 'node:path';

/** Writes `data` to `file` (opened with `flag`), fsynced before closing unless `sync` is false. */
export async function writeFileSynced(file: string, data: string | Uint8Array, o: { flag?: 'w' | 'wx'; sync?: boolean } = {}): Promise<void> {
  const h = await open(file, o.flag ?? 'w');
  try {
    await h.writeFile(data);
    if (o.sync !== false) await h.sync();
  } finally {
    await h.close();
  }
}

/**
 * A temporary name for `file`, in its directory, unique to this call: hidden and ending in
 * `.tmp`, so no reader's glob (`*.json`, `*.parquet`) ever matches it.
 */
export function temporaryName(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Replaces `file` with `data` atomically: a reader sees the old file or the new one, whole. With
 * `syncDir`, the directory entry is made durable too (a crash after this resolves keeps the new file).
 */
export async function replaceFileAtomically(file: string, data: string | Uint8Array, o: { syncDir?: boolean } = {}): Promise<void> {
  const tmp = temporaryName(file);
  await writeFileSynced(tmp, data);
  await rename(tmp, file);
  if (o.syncDir) await fsyncDir(path.dirname(file));
}

/** Makes renames/links in `dir` durable (POSIX: the directory entry needs its own fsync). */
export async function fsyncDir(dir: string): Promise<void> {
  const h = await open(dir, 'r').catch(() => null);
  if (!h) return;
  try {
    await h.sync();
  } catch {
    // some file systems refuse fsync on directories; the link is still atomic
  } finally {
    await h.close();
  }
}
