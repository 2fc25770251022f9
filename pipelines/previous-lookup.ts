import type { PreviousFile, PreviousSnapshot } from '../src/store/previous-snapshot.js';

/**
 * Lookups into the earlier snapshot, batched: the crawl asks for one (subject, file kind) at a
 * time from hundreds of concurrent jobs; the asks of one tick (up to `maxBatch`) become one
 * `PreviousSnapshot.lookup` (the in-memory index, then the body-store presence checks).
 * Results are not cached: each (subject, kind) is asked once per run.
 */
export class PreviousLookup {
  private queue: { key: { subject: string; fileKind: string }; resolve: (f: PreviousFile | null) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;

  constructor(
    private readonly snapshot: PreviousSnapshot,
    readonly snapshotDate: string,
    private readonly maxBatch = 1000,
  ) {}

  get(subject: string, fileKind: string): Promise<PreviousFile | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key: { subject, fileKind }, resolve, reject });
      if (this.queue.length >= this.maxBatch) void this.run();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.run());
      }
    });
  }

  private async run(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.run());
    }
    try {
      const found = await this.snapshot.lookup(batch.map((b) => b.key));
      for (const b of batch) b.resolve(found.get(`${b.key.fileKind} ${b.key.subject}`) ?? null);
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }

  close(): void {
    this.snapshot.close();
  }
}
