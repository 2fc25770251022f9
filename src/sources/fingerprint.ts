/**
 * A list's identity is its bytes, not its path: the crawl hashes each input list (SHA-256 of the
 * bytes as stored, compressed or not) before it starts, records the digest in its checkpoint and
 * manifest, and refuses to resume, or to call complete, a run whose list has changed since.
 * stdin cannot be read twice, so it is first copied to a file (hashed on the way) which the run
 * then reads like any other list.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { ListReadError } from './line-reader.js';

export interface ListFingerprint {
  sha256: string;
  bytes: number;
}

/** Hashes a list file as it streams (one read; 20 MB take ~50 ms). */
export async function fingerprintFile(file: string): Promise<ListFingerprint> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
  } catch (err) {
    throw new ListReadError('LIST_UNREADABLE', `${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Copies `input` (stdin) to `file`, fsynced, and returns the fingerprint of what was copied. */
export async function spoolStream(input: AsyncIterable<Uint8Array>, file: string): Promise<ListFingerprint> {
  const hash = createHash('sha256');
  let bytes = 0;
  const h = await open(file, 'w');
  try {
    for await (const chunk of input) {
      hash.update(chunk);
      bytes += chunk.length;
      await h.write(chunk);
    }
    await h.sync();
  } catch (err) {
    throw new ListReadError('LIST_UNREADABLE', `stdin: read failed (${(err as Error).message})`, { cause: err });
  } finally {
    await h.close();
  }
  return { sha256: hash.digest('hex'), bytes };
}
