import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { StagedPart } from '../src/sink/index.js';
import { replaceFileAtomically } from '../src/util/atomic-file.js';
import { check, ShapeError } from '../src/util/shape.js';
import { RUN_STATE_VERSION, runState, type RunState } from './run-state.js';

/**
 * Crash-safe resume. A run's sealed parts wait in `DIR/_staging/<run id>/` — invisible to
 * `DIR/<table>/*\/*.parquet` — and `state.json` there says, as of the last checkpoint, which
 * items of each phase are done, what the crawl had learnt (partners, ad systems, claimed
 * subjects) and which input it read (a fingerprint of each list's bytes). A run started again
 * with the same arguments gets the same run id, finds that state, adopts the staged parts and
 * goes on from the checkpoint; the rows of work not done at it were never staged, so nothing is
 * duplicated and nothing is missing. The commit (src/sink/commit.ts) is planned in the same
 * state before anything is published, so it can be redone after a kill at any point.
 *
 * The state is checked when it is read back, against the shape run-state.ts declares: a state
 * that cannot be read, or is not one this version wrote, stops the run with `RunStateError`
 * instead of being taken for a fresh start (which would delete the staged work of a run that is
 * in fact resumable).
 */
/**
 * A checkpoint that cannot be resumed: `RUN_STATE_VERSION` when it was written in another format
 * (another adsnap version), `RUN_STATE_INVALID` when it cannot be read or is not well formed.
 */
export class RunStateError extends Error {
  constructor(
    file: string,
    why: string,
    readonly code: 'RUN_STATE_INVALID' | 'RUN_STATE_VERSION' = 'RUN_STATE_INVALID',
  ) {
    super(`${file}: ${why}; it is not a checkpoint this version of adsnap can resume (run again with --restart to discard that attempt's work, or remove the folder)`);
    this.name = 'RunStateError';
  }
}

/** The run id that a run with these arguments always gets: the same arguments resume the same run. */
export function deriveRunId(snapshotDate: string, identity: Record<string, unknown>): string {
  const h = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 12);
  return `${snapshotDate}-${h}`;
}

export class RunJournal {
  private constructor(
    readonly dir: string,
    readonly previous: RunState | null,
  ) {}

  /**
   * Opens the run's staging directory; call it only while holding the run's lock. `restart`
   * discards an earlier attempt's checkpoint and staged parts.
   */
  static async open(outDir: string, runId: string, options: { restart?: boolean } = {}): Promise<RunJournal> {
    const dir = path.join(outDir, '_staging', runId);
    if (options.restart) await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, 'state.json');
    let text: string | null;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new RunStateError(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      text = null; // no checkpoint yet: a fresh start
    }
    const previous = text === null ? null : validateState(file, text, runId);
    const journal = new RunJournal(dir, previous);
    await journal.removeStrays(previous?.staged ?? []);
    return journal;
  }

  get attempt(): number {
    return (this.previous?.attempt ?? 0) + 1;
  }

  /** Writes the checkpoint atomically (a temporary file unique to this call, fsync, rename). */
  async save(state: RunState): Promise<void> {
    await replaceFileAtomically(path.join(this.dir, 'state.json'), JSON.stringify(state));
  }

  /** After the commit: nothing of the run is left in staging. */
  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Parts staged after the last checkpoint by an attempt that then died are not part of the run. */
  private async removeStrays(keep: readonly StagedPart[]): Promise<void> {
    const kept = new Set(keep.map((p) => p.file));
    for (const name of await readdir(this.dir)) {
      if (name === 'state.json' || kept.has(name)) continue;
      await rm(path.join(this.dir, name), { force: true });
    }
  }
}

/** A `state.json` read back: JSON, of this format's version, of this run, and of the shape run-state.ts declares. */
function validateState(file: string, text: string, runId: string): RunState {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new RunStateError(file, `is not JSON (${(err as Error).message})`);
  }
  const version = typeof v === 'object' && v !== null ? (v as { version?: unknown }).version : undefined;
  if (version !== RUN_STATE_VERSION) throw new RunStateError(file, `has format version ${JSON.stringify(version)}, not ${RUN_STATE_VERSION}`, 'RUN_STATE_VERSION');
  let state: RunState;
  try {
    state = check(runState, v, 'state');
  } catch (err) {
    if (err instanceof ShapeError) throw new RunStateError(file, `is not well formed: ${err.message}`);
    throw err;
  }
  if (state.runId !== runId) throw new RunStateError(file, `belongs to run ${JSON.stringify(state.runId)}, not ${runId}`);
  return state;
}
