import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { AppInput } from '../src/sources/apps.js';
import type { Shard } from '../src/util/shard.js';
import type { Listing } from './app-job.js';
import { exchangeDir } from './shard-exchange.js';

/**
 * Apps whose listing named a developer URL, handed from the shard that read the listing (stage
 * 'targets') to the shard that owns the developer host (stage 'referrals'), one NDJSON file per
 * shard. Appended as apps complete (`add` is synchronous: it is called together with the
 * app's commit, and the appends are queued in order); a checkpoint records the length as of one
 * instant (`mark`), and a resumed attempt cuts the file back to that length so no entry appears
 * twice.
 */
export class PendingApps {
  private file: FileHandle | null = null;
  private bytes = 0;
  private writing: Promise<void> = Promise.resolve();
  private failure: Error | null = null;

  constructor(
    private readonly outDir: string,
    private readonly snapshotDate: string,
    private readonly shard: Shard,
  ) {}

  private get dir(): string {
    return exchangeDir(this.outDir, this.snapshotDate, this.shard);
  }

  async open(keepBytes: number): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    this.file = await open(path.join(this.dir, `pending-apps-${this.shard.index}.ndjson`), 'a+');
    await this.file.truncate(keepBytes);
    this.bytes = keepBytes;
  }

  add(app: AppInput, listing: Listing): void {
    if (this.failure) throw this.failure;
    const line = JSON.stringify({ app, listing }) + '\n';
    this.bytes += Buffer.byteLength(line);
    const file = this.file!;
    this.writing = this.writing.then(() => file.appendFile(line)).catch((err: Error) => {
      this.failure ??= err;
    });
  }

  /** The length of what was added so far (what a checkpoint taken now records). */
  mark(): number {
    return this.bytes;
  }

  /** Makes what was added durable; returns the file's length. */
  async sync(): Promise<number> {
    const bytes = this.bytes;
    await this.writing;
    if (this.failure) throw this.failure;
    if (this.file) await this.file.sync();
    return bytes;
  }

  async close(): Promise<void> {
    await this.writing;
    await this.file?.sync();
    await this.file?.close();
    this.file = null;
  }

  /** Every shard's pending apps, in shard order then file order (deterministic). */
  async *readAll(): AsyncGenerator<{ app: AppInput; listing: Listing }> {
    const names = (await readdir(this.dir).catch(() => [] as string[])).filter((n) => /^pending-apps-\d+\.ndjson$/.test(n));
    names.sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]));
    for (const name of names) {
      const lines = createInterface({ input: createReadStream(path.join(this.dir, name)), crlfDelay: Infinity });
      for await (const line of lines) if (line) yield JSON.parse(line) as { app: AppInput; listing: Listing };
    }
  }
}
