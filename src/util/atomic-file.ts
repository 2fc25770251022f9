/**
 * Files that are never seen half-written: the one way adsnap writes a checkpoint, a lock, a
 * shard's report or a run manifest. The bytes go to a temporary name beside the final one (a
 * rename stays on one file system), are fsynced, and only then take the final name, by rename(2)
 * (replace) or by link(2) (create, failing when the name exists: the run lock).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

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

/**
 * Replaces `file` with the bytes of `source`, streamed to a temporary name beside it and renamed
 * when whole: a reader, or a run killed half-way, sees the old file or the new one, never a part
 * (a kill leaves the hidden temporary file). Not fsynced: an output of hundreds of MB (`adsnap
 * verify --out`) need not survive a power cut, only never be seen cut short. On failure, or when
 * `signal` aborts, the temporary file is removed and `file` is as it was.
 */
export async function replaceFileFromStream(file: string, source: AsyncIterable<Uint8Array>, signal?: AbortSignal): Promise<void> {
  const tmp = temporaryName(file);
  try {
    await pipeline(source, createWriteStream(tmp), { signal });
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
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
