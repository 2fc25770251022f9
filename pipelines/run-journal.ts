import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { tableNames, type TableName } from '../schemas/tables.js';
import type { PlannedPart, StagedPart } from '../src/sink/index.js';
import { replaceFileAtomically } from '../src/util/atomic-file.js';
import { isDoneSet, type DoneSet } from './pool.js';

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
 * The state is checked when it is read back: a state that cannot be read, or is not one this
 * version wrote, stops the run with `RunStateError` instead of being taken for a fresh start
 * (which would delete the staged work of a run that is in fact resumable).
 */
/** The work phases, then `seal` (work done), `compact` (parts sealed) and `commit` (plan saved). */
export type Phase = 'domains' | 'apps' | 'partners' | 'sellers' | 'seal' | 'compact' | 'commit';
export type WorkPhase = Exclude<Phase, 'seal' | 'compact' | 'commit'>;

/** A list's bytes as read: the whole file, or (stdin) what was read by the last checkpoint. */
export interface InputFingerprint {
  sha256: string;
  bytes: number;
  /** The whole input (a file hashed before the crawl, or stdin read to its end). */
  complete: boolean;
}

/**
 * The rounds of the sellers phase (src/resolve/intermediaries.ts): round 0 is the ad systems'
 * sellers.json, round k those named by INTERMEDIARY/BOTH entries of round k−1 files. Each round's
 * list is fixed when it starts (`sellersList`) and its done set is `done.sellers`, so a resumed
 * run goes on inside the round it was in; what earlier rounds fetched is kept here, so no file is
 * fetched twice in a night.
 */
export interface SellersRounds {
  /** The round `sellersList` belongs to. */
  round: number;
  /** Domains whose sellers.json an earlier round of this night asked for. */
  fetched: string[];
  /** Files asked per finished round, in round order (a sharded `intermediaries` stage starts at round 1). */
  files: { round: number; files: number }[];
  /** When the bound on intermediary files per night cut a round: which, and how many it left out. */
  limitReached: { round: number; notFetched: number } | null;
}

export interface RunState {
  version: 2;
  runId: string;
  attempt: number;
  phase: Phase;
  /** Items of each phase's (deterministic) input that are complete. */
  done: Record<WorkPhase, DoneSet>;
  /** Inputs of the referral phases, fixed when the phase starts. */
  partnerList: string[] | null;
  sellersList: string[] | null;
  /** Absent in a checkpoint written before the rounds existed (it is round 0). */
  sellersRounds?: SellersRounds;
  referrals: unknown;
  apps: unknown;
  stats: unknown;
  staged: StagedPart[];
  /** Sharded runs: length of this shard's pending-apps file at the checkpoint. */
  pendingAppsBytes: number;
  inputs: { domains: InputFingerprint | null; apps: InputFingerprint | null };
  /** The commit's plan, once the parts are compacted (phase 'commit'). */
  commit: PlannedPart[] | null;
  /** What the manifest will say (phase 'commit'), so that a resumed commit writes the same. */
  manifest: Record<string, unknown> | null;
  /** Sharded runs: what this shard tells the others once the stage is committed. */
  shardReport: unknown;
}

export class RunStateError extends Error {
  readonly code = 'RUN_STATE_INVALID';
  constructor(file: string, why: string) {
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

const PHASES: readonly Phase[] = ['domains', 'apps', 'partners', 'sellers', 'seal', 'compact', 'commit'];

function validateState(file: string, text: string, runId: string): RunState {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new RunStateError(file, `is not JSON (${(err as Error).message})`);
  }
  const s = v as Partial<RunState> & Record<string, unknown>;
  const bad = (why: string): never => {
    throw new RunStateError(file, why);
  };
  if (typeof s !== 'object' || s === null) bad('is not an object');
  if (s.version !== 2) bad(`has version ${JSON.stringify(s.version)}, not 2`);
  if (s.runId !== runId) bad(`belongs to run ${JSON.stringify(s.runId)}, not ${runId}`);
  if (!Number.isInteger(s.attempt) || (s.attempt as number) < 1) bad('has no attempt number');
  if (!PHASES.includes(s.phase as Phase)) bad(`has an unknown phase ${JSON.stringify(s.phase)}`);
  const done = s.done as Record<string, unknown> | undefined;
  for (const p of PHASES.slice(0, 4)) if (!done || !isDoneSet(done[p])) bad(`has no valid done set for phase ${p}`);
  for (const k of ['partnerList', 'sellersList'] as const) {
    const l = s[k];
    if (l !== null && !(Array.isArray(l) && l.every((x) => typeof x === 'string'))) bad(`has an invalid ${k}`);
  }
  if (s.sellersRounds !== undefined && !isSellersRounds(s.sellersRounds)) bad('has invalid sellersRounds');
  if (!Array.isArray(s.staged) || !s.staged.every(isStagedPart)) bad('has an invalid list of staged parts');
  if (!Number.isInteger(s.pendingAppsBytes) || (s.pendingAppsBytes as number) < 0) bad('has an invalid pendingAppsBytes');
  const inputs = s.inputs as Record<string, unknown> | undefined;
  if (!inputs || !['domains', 'apps'].every((k) => inputs[k] === null || isFingerprint(inputs[k]))) bad('has invalid input fingerprints');
  if (s.commit !== null && !(Array.isArray(s.commit) && s.commit.every(isPlannedPart))) bad('has an invalid commit plan');
  if ((s.phase === 'commit' || s.phase === 'compact') && (typeof s.manifest !== 'object' || s.manifest === null)) bad(`is in the ${s.phase} phase without a manifest`);
  if (s.phase === 'commit' && s.commit === null) bad('is in the commit phase without a plan');
  return s as RunState;
}

const isTable = (t: unknown): t is TableName => typeof t === 'string' && (tableNames as readonly string[]).includes(t);
const isCount = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
// Staged files are plain names inside the staging directory, never paths.
const isPlainName = (f: unknown) => typeof f === 'string' && /^[A-Za-z0-9_.-]+$/.test(f) && !f.startsWith('.');

function isStagedPart(p: unknown): p is StagedPart {
  const x = p as StagedPart;
  return typeof x === 'object' && x !== null && isTable(x.table) && isPlainName(x.file) && isCount(x.rows) && isCount(x.bytes);
}

function isPlannedPart(p: unknown): p is PlannedPart {
  const x = p as PlannedPart;
  return typeof x === 'object' && x !== null && isTable(x.table) && isPlainName(x.staged) && typeof x.final === 'string' && new RegExp(`^${x.table}/snapshot_date=\\d{4}-\\d{2}-\\d{2}/part-\\d+\\.parquet$`).test(x.final) && isCount(x.rows) && isCount(x.bytes);
}

function isSellersRounds(r: unknown): r is SellersRounds {
  const x = r as SellersRounds;
  if (typeof x !== 'object' || x === null || !isCount(x.round)) return false;
  if (!Array.isArray(x.fetched) || !x.fetched.every((d) => typeof d === 'string')) return false;
  if (!Array.isArray(x.files) || !x.files.every((f) => typeof f === 'object' && f !== null && isCount(f.round) && isCount(f.files))) return false;
  const l = x.limitReached;
  return l === null || (typeof l === 'object' && isCount(l.round) && isCount(l.notFetched));
}

function isFingerprint(f: unknown): f is InputFingerprint {
  const x = f as InputFingerprint;
  return typeof x === 'object' && x !== null && typeof x.sha256 === 'string' && /^[0-9a-f]{64}$/.test(x.sha256) && isCount(x.bytes) && typeof x.complete === 'boolean';
}
