/**
 * Content-addressed store of fetched bodies, so earlier snapshots can be re-parsed and reused
 * (`not_modified`, `carried_forward`, `adsnap reparse`). One store per snapshot root,
 * shared by every snapshot date in it:
 *
 *   DIR/_bodies/<first 2 hex of sha256>/<sha256>.gz     gzip of the exact body bytes read
 *   DIR/_bodies/.tmp/<pid>-<n>-<random>.tmp             bodies being written (never a body name)
 *
 * A body file appears only complete (temp + rename), so a killed run leaves at most temporary
 * files, which `sweepTemporary()` removes. Reads verify the sha256, so a damaged file is never
 * taken for the body it is named after.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createGunzip, gunzip, gunzipSync } from 'node:zlib';
import { StoreBodyWriter, type BodyWriter, type BodyWriterEnv } from './body-writer.js';

export type { BodyWriteResult, BodyWriter } from './body-writer.js';

const gunzipAsync = promisify(gunzip);

export interface BodyStoreOptions {
  /** Bodies larger than this are not stored (`stored: false`). @default 16 MiB */
  maxBytes?: number;
  /** Bodies up to this size are compressed in one go at finish; larger ones stream to a temporary file. @default 64 KiB */
  memoryBytes?: number;
  /** gzip level 1–9. @default 6 */
  level?: number;
  /** fsync each body before it is published (durable across power loss, slower). @default false */
  fsync?: boolean;
}

/** The store's folder inside a snapshot root. */
export const BODIES_DIR = '_bodies';
const TMP_DIR = '.tmp';
const EXT = '.gz';
const SHA256_HEX = /^[0-9a-f]{64}$/;
/**
 * Stored (compressed) files up to this size are read and inflated synchronously in one go.
 * Replaying an incremental run's bodies is thousands of small files: a few file-system calls on
 * a file in the page cache cost microseconds, while each trip through libuv's four-thread pool
 * (stat, open, read, close, every inflate chunk) queued behind the others. Larger files stream.
 */
const SYNC_READ_MAX = 256 * 1024;
/** Largest body inflated in one go on that path; a larger one is streamed. */
const SYNC_INFLATE_MAX = 4 * 1024 * 1024;

export class BodyStoreError extends Error {
  constructor(
    readonly code: 'corrupt' | 'missing',
    message: string,
  ) {
    super(message);
    this.name = 'BodyStoreError';
  }
}

export function isSha256Hex(s: string): boolean {
  return SHA256_HEX.test(s);
}

/** The body store directory of a snapshot root: `DIR/_bodies`. */
export function bodiesDir(snapshotRoot: string): string {
  return path.join(snapshotRoot, BODIES_DIR);
}

export class BodyStore {
  /** The store's directory (`DIR/_bodies`). */
  readonly dir: string;
  private readonly opts: Required<BodyStoreOptions>;
  private readonly madeDirs = new Map<string, Promise<unknown>>();
  private tmpSeq = 0;
  private readonly tmpTag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly env: BodyWriterEnv;

  /**
   * @param dir the store's own directory: `DIR/_bodies` for a snapshot root DIR — see
   * `bodiesDir()` / `BodyStore.forSnapshot()`.
   */
  constructor(dir: string, options: BodyStoreOptions = {}) {
    this.dir = dir;
    this.opts = resolveOptions(options);
    this.env = {
      maxBytes: this.opts.maxBytes,
      memoryBytes: this.opts.memoryBytes,
      level: this.opts.level,
      fsync: this.opts.fsync,
      tempPath: async () => {
        const dir = path.join(this.dir, TMP_DIR);
        await this.ensureDir(dir);
        return path.join(dir, `${this.tmpTag}-${++this.tmpSeq}.tmp`);
      },
      finalPath: async (sha) => {
        const p = this.pathOf(sha);
        await this.ensureDir(path.dirname(p));
        return p;
      },
      has: (sha) => this.hasSync(sha),
    };
  }

  /** The store shared by every snapshot date under a snapshot root (`DIR/_bodies`). */
  static forSnapshot(snapshotRoot: string, options: BodyStoreOptions = {}): BodyStore {
    return new BodyStore(bodiesDir(snapshotRoot), options);
  }

  /** Where the body with this sha256 is (or would be) stored. */
  pathOf(sha256: string): string {
    if (!isSha256Hex(sha256)) throw new TypeError(`not a lower-case hex sha256: ${JSON.stringify(sha256)}`);
    return path.join(this.dir, sha256.slice(0, 2), sha256 + EXT);
  }

  /** A writer for one body; many may be open at once. */
  writer(): BodyWriter {
    return new StoreBodyWriter(this.env);
  }

  async has(sha256: string): Promise<boolean> {
    return this.hasSync(sha256);
  }

  /** Whether the body is stored (one stat; see SYNC_READ_MAX for why synchronous). */
  hasSync(sha256: string): boolean {
    if (!isSha256Hex(sha256)) return false;
    try {
      return statSync(this.pathOf(sha256), { throwIfNoEntry: false })?.isFile() ?? false;
    } catch {
      return false; // unreadable (EACCES, ENOTDIR…): as good as absent, the file is fetched again
    }
  }

  /** The whole body, verified against its sha256; null when not stored. Throws BodyStoreError('corrupt'). */
  async get(sha256: string): Promise<Uint8Array | null> {
    if (!isSha256Hex(sha256)) return null;
    let compressed: Buffer;
    try {
      compressed = await readFile(this.pathOf(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let body: Buffer;
    try {
      body = await gunzipAsync(compressed);
    } catch (err) {
      throw new BodyStoreError('corrupt', `body ${sha256} does not decompress: ${(err as Error).message}`);
    }
    if (createHash('sha256').update(body).digest('hex') !== sha256) throw new BodyStoreError('corrupt', `body ${sha256} does not match its sha256`);
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  }

  /**
   * The body as a stream of chunks (bounded memory for big bodies), or null for a malformed
   * sha256. Iterating throws BodyStoreError 'missing' when it is not stored and 'corrupt' when the
   * bytes do not match (after the last chunk: consumers must not commit before the end).
   */
  stream(sha256: string): AsyncIterable<Uint8Array> | null {
    if (!isSha256Hex(sha256)) return null;
    return this.chunks(sha256);
  }

  /** Like stream(), but null when the body is not stored (checked first). */
  async open(sha256: string): Promise<AsyncIterable<Uint8Array> | null> {
    return this.hasSync(sha256) ? this.chunks(sha256) : null;
  }

  /**
   * Removes temporary files left by killed runs. Only files older than `olderThanMs` go, so
   * writers of a run still going (another process) are not disturbed. Returns the paths removed.
   */
  async sweepTemporary(olderThanMs = 60 * 60 * 1000, now = Date.now()): Promise<string[]> {
    const dir = path.join(this.dir, TMP_DIR);
    const removed: string[] = [];
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const p = path.join(dir, name);
      const st = await stat(p).catch(() => null);
      if (st && now - st.mtimeMs >= olderThanMs) {
        await rm(p, { force: true });
        removed.push(p);
      }
    }
    return removed;
  }

  private async *chunks(sha256: string): AsyncGenerator<Uint8Array> {
    const hash = createHash('sha256');
    let fd: number;
    try {
      fd = openSync(this.pathOf(sha256), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BodyStoreError('missing', `body ${sha256} is not stored`);
      throw new BodyStoreError('corrupt', `body ${sha256} cannot be read: ${(err as Error).message}`);
    }
    let size: number;
    try {
      size = fstatSync(fd).size;
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    let body: Buffer | null = null;
    if (size <= SYNC_READ_MAX) {
      try {
        const compressed = Buffer.allocUnsafe(size);
        for (let off = 0; off < size; ) {
          const n = readSync(fd, compressed, off, size - off, off);
          if (n === 0) break;
          off += n;
        }
        // A small file can inflate to a large body (gzip reaches ~1000:1): past SYNC_INFLATE_MAX
        // it is streamed instead, so memory stays bounded by a chunk, not by the body.
        body = gunzipSync(compressed, { maxOutputLength: SYNC_INFLATE_MAX });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') {
          closeSync(fd);
          throw new BodyStoreError('corrupt', `body ${sha256} does not decompress: ${(err as Error).message}`);
        }
      }
    }
    if (body !== null) {
      closeSync(fd);
      hash.update(body);
      if (body.length > 0) yield new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    } else {
      const file = createReadStream('', { fd });
      const gunzipStream = createGunzip();
      file.on('error', (err) => gunzipStream.destroy(err));
      file.pipe(gunzipStream);
      try {
        for await (const chunk of gunzipStream as AsyncIterable<Buffer>) {
          hash.update(chunk);
          yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        }
      } catch (err) {
        throw new BodyStoreError('corrupt', `body ${sha256} does not decompress: ${(err as Error).message}`);
      } finally {
        file.destroy();
        gunzipStream.destroy();
      }
    }
    if (hash.digest('hex') !== sha256) throw new BodyStoreError('corrupt', `body ${sha256} does not match its sha256`);
  }

  private ensureDir(dir: string): Promise<unknown> {
    let p = this.madeDirs.get(dir);
    if (!p) {
      p = mkdir(dir, { recursive: true });
      // A failed mkdir is retried next time rather than cached.
      p.catch(() => this.madeDirs.delete(dir));
      this.madeDirs.set(dir, p);
    }
    return p;
  }
}

function resolveOptions(o: BodyStoreOptions): Required<BodyStoreOptions> {
  const maxBytes = o.maxBytes ?? 16 * 1024 * 1024;
  const memoryBytes = o.memoryBytes ?? 64 * 1024;
  const level = o.level ?? 6;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new TypeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
  if (!Number.isSafeInteger(memoryBytes) || memoryBytes < 0) throw new TypeError(`memoryBytes must be a non-negative integer, got ${memoryBytes}`);
  if (!Number.isInteger(level) || level < 1 || level > 9) throw new TypeError(`level must be an integer 1–9, got ${level}`);
  return { maxBytes, memoryBytes, level, fsync: o.fsync ?? false };
}
