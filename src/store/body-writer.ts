/**
 * One body on its way into the content-addressed store (body-store.ts). The crawl tees every
 * body chunk into `push()` as it streams; the writer hashes as it goes and compresses. Bodies up
 * to `memoryBytes` stay in memory until `finish()`, so the common case — a small ads.txt we
 * already have — costs one stat and no file at all; larger bodies spill into a gzip stream
 * writing a temporary file, so memory stays bounded whatever the body size.
 */
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, renameSync, writeFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync, type Gzip } from 'node:zlib';
import { writeFileSynced } from '../util/atomic-file.js';

export interface BodyWriteResult {
  /** Hex sha256 of every byte pushed (also when the body was not stored). */
  sha256: string;
  /** Bytes pushed. */
  bytes: number;
  /** The body is in the store now (written by this writer or already there). */
  stored: boolean;
  /** It was already there; this writer's copy was dropped. */
  deduplicated: boolean;
}

export interface BodyWriter {
  /**
   * Adds the next chunk. The chunk must not be modified afterwards (it may be queued). Returns a
   * promise when the compressor is behind: await it to slow down to the disk's pace.
   */
  push(chunk: Uint8Array): void | Promise<void>;
  /** Seals the body: hashes, publishes it under its sha256 (unless present or over the cap). */
  finish(): Promise<BodyWriteResult>;
  /** Drops the body; nothing is left behind. Safe to call at any time, more than once. */
  abort(): Promise<void>;
}

/** What a writer needs from its store (resolved options and placement). */
export interface BodyWriterEnv {
  maxBytes: number;
  memoryBytes: number;
  level: number;
  fsync: boolean;
  /** A fresh temporary path inside the store (never a body name). */
  tempPath(): Promise<string>;
  /** Final path for a sha256, its directory created. */
  finalPath(sha256: string): Promise<string>;
  /**
   * Whether the body with this sha256 is stored already (BodyStore.hasSync: one synchronous stat
   * that does not throw for a missing file). Most bodies of a night are new, and each asynchronous
   * stat of a missing file built an error with its stack trace: 3.9 s of the main thread in a
   * 20k-site crawl (docs/performance.md).
   */
  has(sha256: string): boolean;
}

type State = 'open' | 'oversize' | 'finished' | 'aborted';

export class StoreBodyWriter implements BodyWriter {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private state: State = 'open';
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private gz: Gzip | null = null;
  private piping: Promise<void> | null = null;
  private tmp: string | null = null;
  private spilling: Promise<void> | null = null;
  private failure: Error | null = null;

  constructor(private readonly env: BodyWriterEnv) {}

  push(chunk: Uint8Array): void | Promise<void> {
    if (this.state === 'finished' || this.state === 'aborted') throw new Error(`body writer is ${this.state}`);
    this.bytes += chunk.byteLength;
    this.hash.update(chunk);
    if (this.state === 'oversize') return;
    if (this.bytes > this.env.maxBytes) {
      // Over the cap: keep hashing (the sha256 stays right) but store nothing.
      this.state = 'oversize';
      this.held = [];
      this.heldBytes = 0;
      this.gz?.destroy(); // stop compressing now; finish()/abort() remove the temporary file
      return;
    }
    if (this.gz) return this.write(chunk);
    this.held.push(chunk);
    this.heldBytes += chunk.byteLength;
    if (this.heldBytes > this.env.memoryBytes && !this.spilling) {
      this.spilling = this.spill();
      return this.spilling;
    }
    if (this.spilling) return this.spilling;
  }

  async finish(): Promise<BodyWriteResult> {
    if (this.state === 'finished' || this.state === 'aborted') throw new Error(`body writer is ${this.state}`);
    const oversize = this.state === 'oversize';
    this.state = 'finished';
    const sha256 = this.hash.digest('hex');
    const bytes = this.bytes;
    try {
      if (this.spilling) await this.spilling;
      if (oversize) {
        await this.dropFile();
        return { sha256, bytes, stored: false, deduplicated: false };
      }
      if (this.env.has(sha256)) {
        // Dedup: the same bytes are already stored; drop ours (finishing the stream first).
        await this.dropFile();
        this.held = [];
        return { sha256, bytes, stored: true, deduplicated: true };
      }
      if (this.gz) {
        this.gz.end();
        await this.piping;
        if (this.failure) throw this.failure;
        if (this.env.fsync) await syncFile(this.tmp!);
      } else {
        // Compressed here, on the caller's thread: a body held in memory is at most memoryBytes
        // (64 KiB; 2.6 kB on average in a crawl). zlib's asynchronous gzip() sets up a stream and a
        // deflate state per call and finishes in libuv's pool; the job that stored the body waited
        // for that round trip, ~0.1 s a body at 256 requests in flight (11% of the lanes' time in a
        // 20k-site crawl), and the pool's threads spent ~8 CPU s more (docs/performance.md,
        // "The body's compression on the caller's thread, and the heap's growth").
        const data = gzipSync(concat(this.held, this.heldBytes), { level: this.env.level });
        this.held = [];
        this.tmp = await this.env.tempPath();
        // A body held in memory is small (memoryBytes): written in one synchronous call, as the
        // store reads small files (body-store.ts, SYNC_READ_MAX), unless each body is fsynced.
        if (this.env.fsync) await writeFileSynced(this.tmp, data, { flag: 'wx' });
        else writeFileSync(this.tmp, data, { flag: 'wx' });
      }
      // Temp + rename: a reader sees the whole body or none. A concurrent writer of the same
      // bytes may rename over ours: same content, so either copy is right.
      const final = await this.env.finalPath(sha256);
      renameSync(this.tmp!, final);
      this.tmp = null;
      return { sha256, bytes, stored: true, deduplicated: false };
    } catch (err) {
      await this.dropFile();
      throw err;
    }
  }

  async abort(): Promise<void> {
    if (this.state === 'aborted') return;
    this.state = 'aborted';
    this.held = [];
    if (this.spilling) await this.spilling.catch(() => undefined);
    await this.dropFile();
  }

  /** Opens the temporary file and moves the held chunks into the compressor. */
  private async spill(): Promise<void> {
    const tmp = await this.env.tempPath();
    this.tmp = tmp;
    if (this.state !== 'open') return; // aborted / over the cap while the path was made
    const gz = createGzip({ level: this.env.level, chunkSize: 64 * 1024 });
    const file = createWriteStream(tmp, { flags: 'wx' });
    this.gz = gz;
    this.piping = pipeline(gz, file);
    // Recorded, not thrown here: finish() reports it; an ignored push() promise must not reject.
    this.piping.catch((err: Error) => {
      this.failure ??= err;
    });
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    let ok = true;
    for (const c of held) ok = gz.write(c) && ok;
    if (!ok) await this.drained();
  }

  private write(chunk: Uint8Array): void | Promise<void> {
    if (!this.gz!.write(chunk)) return this.drained();
  }

  /** Resolves on 'drain', or when the stream fails (the failure surfaces in finish()). */
  private drained(): Promise<void> {
    const gz = this.gz!;
    return once(gz, 'drain').then(
      () => undefined,
      () => undefined,
    );
  }

  /** Stops any compression in progress and removes the temporary file. */
  private async dropFile(): Promise<void> {
    if (this.gz) {
      const gz = this.gz;
      this.gz = null;
      gz.destroy();
      await this.piping?.catch(() => undefined);
    }
    if (this.tmp) {
      const tmp = this.tmp;
      this.tmp = null;
      await rm(tmp, { force: true });
    }
  }
}

async function syncFile(p: string): Promise<void> {
  const h = await open(p, 'r+');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.byteLength;
  }
  return out;
}
