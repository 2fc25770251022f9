/**
 * One live attempt per run: a lock file `DIR/_staging/<run id>.lock`, linked into place whole,
 * naming its holder (host, pid, the process's start time and the boot id, since) with a token
 * unique to the attempt. A second attempt of the same run while the first is alive fails at once
 * with `RunLockedError`, which names the holder.
 *
 * Liveness is judged by the heartbeat first: the holder touches the file every `heartbeatMs`, and
 * a lock untouched for `staleMs` (the bound its holder announced in the file, else ours) is stale
 * whatever its pid or host say: a pod replaced on another node, a holder frozen or partitioned
 * away. A lock with a fresh heartbeat is alive when it comes from another machine (we cannot see
 * its processes); on this machine (same host and boot id) only while its pid is still the very
 * process that wrote it (same start time, not exiting): a container started again as pid 1, or
 * another process that got a dead holder's pid, never holds a lock; a SIGKILLed holder still
 * being torn down does not either.
 *
 * The take-over moves the stale file aside under a unique name (rename(2) is atomic: of two
 * processes taking over at once, one moves the stale lock and the other finds it gone), checks
 * that what it moved is the lock it judged stale (else puts it back), and only then creates its
 * own. A holder checks on every heartbeat that the file still carries its token (`assertHeld`),
 * so a run whose lock was taken from it stops before it commits anything. Of two takers one wins;
 * of three or more at the same instant, one that moved a winner's lock aside by mistake and found
 * a third's lock in its place when putting it back leaves that first winner to learn at its next
 * check (heartbeat, save, commit step) that it lost: one attempt holds the lock in the end.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { writeFileSynced } from '../util/atomic-file.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { bootId, processState, selfIdentity } from './process-identity.js';

export interface LockHolder {
  host: string;
  pid: number;
  since: string;
  token: string;
  /** The holder's start time in clock ticks after boot (`/proc/PID/stat` field 22); absent in older locks or without /proc. */
  startTicks?: number | null;
  /** The kernel's boot id where the holder runs. */
  bootId?: string | null;
  /** When the holder's process started (ms since the epoch). */
  startedAtMs?: number;
  /** The holder's heartbeat and stale bound, so that a judge with other settings reads its heartbeat right. */
  heartbeatMs?: number;
  staleMs?: number;
}

/** The defaults, stated once (CLI usage, docs and the manifest read them from here). */
export const RUN_LOCK_DEFAULTS = { heartbeatMs: 5_000, staleMs: 30_000 } as const;
/** The stale bound must leave room for missed heartbeats: a holder is never judged stale between two of its own. */
export const MIN_HEARTBEATS_PER_STALE = 3;

export class RunLockedError extends Error {
  readonly code = 'RUN_LOCKED';
  constructor(
    readonly lockPath: string,
    readonly holder: LockHolder,
    readonly heartbeatAgeMs: number | null = null,
  ) {
    const beat = heartbeatAgeMs === null ? '' : `, last heartbeat ${(heartbeatAgeMs / 1000).toFixed(1)} s ago`;
    super(`another attempt of this run is alive: host ${holder.host}, pid ${holder.pid}, since ${holder.since}${beat} (lock ${lockPath}); retry when it has ended`);
    this.name = 'RunLockedError';
  }
}

/** This attempt's lock was taken over by another attempt (it judged ours stale): stop, commit nothing. */
export class RunLockLostError extends Error {
  readonly code = 'RUN_LOCK_LOST';
}

export interface RunLockOptions {
  /** How often the holder touches the lock. @default RUN_LOCK_DEFAULTS.heartbeatMs (5000) */
  heartbeatMs?: number;
  /** A lock untouched this long is stale, whatever its pid or host. @default RUN_LOCK_DEFAULTS.staleMs (30000) */
  staleMs?: number;
}

/** The options with their defaults, checked (`staleMs` ≥ 3 × `heartbeatMs`). Throws TypeError. */
export function resolveRunLockOptions(o: RunLockOptions = {}): Required<RunLockOptions> {
  const heartbeatMs = o.heartbeatMs ?? RUN_LOCK_DEFAULTS.heartbeatMs;
  const staleMs = o.staleMs ?? RUN_LOCK_DEFAULTS.staleMs;
  for (const [name, v] of [['heartbeatMs', heartbeatMs], ['staleMs', staleMs]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) throw new TypeError(`lock ${name} must be a positive integer (ms), got ${v}`);
  }
  if (staleMs < MIN_HEARTBEATS_PER_STALE * heartbeatMs) {
    throw new TypeError(`the lock's stale bound (${staleMs} ms) must be at least ${MIN_HEARTBEATS_PER_STALE} heartbeats (${MIN_HEARTBEATS_PER_STALE * heartbeatMs} ms): a live holder would be taken for dead between two heartbeats`);
  }
  return { heartbeatMs, staleMs };
}

export class RunLock {
  private timer: NodeJS.Timeout | null = null;
  private lost: Error | null = null;

  private constructor(
    readonly path: string,
    readonly holder: LockHolder,
  ) {}

  /** Takes the lock of `runId` under `stagingRoot`, or throws RunLockedError naming the live holder. */
  static async acquire(stagingRoot: string, runId: string, options: RunLockOptions = {}): Promise<RunLock> {
    const { heartbeatMs, staleMs } = resolveRunLockOptions(options);
    await mkdir(stagingRoot, { recursive: true });
    const lockPath = path.join(stagingRoot, `${runId}.lock`);
    const self = selfIdentity();
    const me: LockHolder = {
      host: hostname(),
      pid: self.pid,
      since: new Date().toISOString(),
      token: randomBytes(8).toString('hex'),
      startTicks: self.startTicks,
      bootId: self.bootId,
      startedAtMs: self.startedAtMs,
      heartbeatMs,
      staleMs,
    };
    for (let tries = 0; tries < 5; tries++) {
      if (await createExclusive(lockPath, me)) {
        const lock = new RunLock(lockPath, me);
        lock.startHeartbeat(heartbeatMs);
        return lock;
      }
      const found = await readHolder(lockPath);
      if (found === 'gone') continue; // released meanwhile: try again
      const age = await ageMs(lockPath);
      if (found === 'unreadable') {
        // A lock being written this very moment (or a damaged one, which becomes stale in time).
        if (age < staleMs) throw new RunLockedError(lockPath, { host: '?', pid: 0, since: '?', token: '' }, age);
      } else if (await isAlive(found, age, staleMs)) throw new RunLockedError(lockPath, found, age);
      await takeOver(lockPath, found === 'unreadable' ? null : found.token, me.token);
    }
    throw new Error(`could not take the lock ${lockPath}: it keeps changing hands`);
  }

  /** Throws RunLockLostError when this attempt no longer holds the lock (it was taken over as stale). */
  async assertHeld(): Promise<void> {
    if (this.lost) throw this.lost;
    let found = await readHolder(this.path);
    // A taker that moved our lock aside by mistake puts it back within microseconds: look again.
    for (let i = 0; i < 3 && found === 'gone'; i++) {
      await sleep(20);
      found = await readHolder(this.path);
    }
    if (found === 'gone' || found === 'unreadable' || found.token !== this.holder.token) {
      const by = found === 'gone' || found === 'unreadable' ? 'nobody' : `host ${found.host}, pid ${found.pid}`;
      this.lost = new RunLockLostError(`this run's lock ${this.path} was taken over (now held by ${by}): another attempt judged it stale (no heartbeat for ${this.holder.staleMs} ms); stopping without committing`);
      throw this.lost;
    }
  }

  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const found = await readHolder(this.path);
    if (found !== 'gone' && found !== 'unreadable' && found.token === this.holder.token) await unlink(this.path).catch(() => undefined);
  }

  private startHeartbeat(ms: number): void {
    this.timer = setInterval(() => {
      const t = new Date();
      void utimes(this.path, t, t)
        .catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err; // gone: assertHeld tells a moment's absence from a loss
        })
        .then(() => this.assertHeld())
        .catch((err: Error) => (this.lost ??= err));
    }, ms);
    this.timer.unref();
  }
}

async function createExclusive(lockPath: string, me: LockHolder): Promise<boolean> {
  // Written under a unique name, then linked: the lock never exists half-written.
  const tmp = `${lockPath}.${me.token}.tmp`;
  await writeFileSynced(tmp, JSON.stringify(me));
  try {
    await link(tmp, lockPath);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

async function readHolder(lockPath: string): Promise<LockHolder | 'gone' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.host === 'string' && typeof v.pid === 'number' && typeof v.since === 'string' && typeof v.token === 'string') return v as LockHolder;
  } catch {
    // fall through
  }
  return 'unreadable';
}

/**
 * Heartbeat first: a lock untouched for its holder's stale bound (else ours) is stale, whoever holds
 * it. A fresh one from another machine is alive; on this machine only while its holder runs.
 */
async function isAlive(holder: LockHolder, heartbeatAgeMs: number, staleMs: number): Promise<boolean> {
  if (heartbeatAgeMs >= (holder.staleMs ?? staleMs)) return false;
  if (!onThisMachine(holder)) return true;
  return holderRuns(holder);
}

/** Same host name and, where both are known, the same boot: the holder's pid means a process here. */
function onThisMachine(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  const here = bootId();
  return holder.bootId == null || here === null || holder.bootId === here;
}

/** The process that wrote the lock is still running (its pid is not now another process's). */
async function holderRuns(holder: LockHolder): Promise<boolean> {
  const self = selfIdentity();
  if (holder.pid === self.pid) {
    // Our pid: this very process (a second crawl in one process), or an earlier one that had it (a restarted container).
    if (holder.startTicks != null && self.startTicks !== null) return holder.startTicks === self.startTicks;
    if (holder.startedAtMs !== undefined) return holder.startedAtMs === self.startedAtMs;
    return Date.parse(holder.since) >= self.startedAtMs; // an older lock: written after we started, or not by us
  }
  const st = await processState(holder.pid);
  if (st.kind === 'running') return holder.startTicks == null || holder.startTicks === st.startTicks;
  if (st.kind === 'unknown') return st.exists;
  return false; // absent, or being torn down
}

async function ageMs(p: string): Promise<number> {
  try {
    return Date.now() - (await stat(p)).mtimeMs;
  } catch {
    return Infinity;
  }
}

/** Moves the stale lock aside; puts it back if what was moved turns out to be someone else's fresh lock. */
async function takeOver(lockPath: string, staleToken: string | null, myToken: string): Promise<void> {
  const aside = `${lockPath}.${myToken}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // another attempt moved it first
    throw err;
  }
  const moved = await readHolder(aside);
  const movedToken = moved === 'gone' || moved === 'unreadable' ? null : moved.token;
  if (movedToken !== staleToken) await link(aside, lockPath).catch(() => undefined); // a fresh lock: restore it
  await unlink(aside).catch(() => undefined);
}
