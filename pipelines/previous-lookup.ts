import { previousKey, type PreviousFile, type PreviousSnapshot } from '../src/store/previous-snapshot.js';

/**
 * Lookups into the earlier snapshot, one (subject, file kind) at a time: its index is in memory
 * (`PreviousSnapshot.lookup`, then a body-store presence check), so there is nothing to batch.
 * Results are not cached: each (subject, kind) is asked once per run.
 */
export class PreviousLookup {
  constructor(
    private readonly snapshot: PreviousSnapshot,
    readonly snapshotDate: string,
  ) {}

  async get(subject: string, fileKind: string): Promise<PreviousFile | null> {
    const found = await this.snapshot.lookup([{ subject, fileKind }]);
    return found.get(previousKey(fileKind, subject)) ?? null;
  }

  close(): void {
    this.snapshot.close();
  }
}
