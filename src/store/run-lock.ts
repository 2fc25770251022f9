/**
 * One live attempt per run: a lock file `DIR/_staging/<run id>.lock` created with O_EXCL, holding
 * who owns it (host, pid, since) and a token unique to the attempt. A second attempt of the same
 * run while the first is alive fails at once with `RunLockedError`, which names the holder.
 *
 * A lock whose holder is gone is taken over:
 * - on the same host, when its pid no longer exists (a SIGKILLed run, a crash);
 * - from another host (a shared volume), when its heartbeat (the file's mtime, touched every
 *   `heartbeatMs`) is older than `staleMs`.
 * The take-over moves the stale file aside under a unique name (rename(2) is atomic: of two
 * processes taking over at once, one moves the stale lock and the other finds it gone), checks
 * that what it moved is the lock it judged stale, and only then creates its own with O_EXCL.
 * A holder checks on every heartbeat that the file still carries its token (`assertHeld`), so
 * a run whose lock was taken from it stops before it commits anything.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { writeFileSynced } from '../util/atomic-file.js';

export interface LockHolder {
  host: string;
  pid: number;
  since: string;
  token: string;
}

export class RunLockedError extends Error {
  readonly code = 'RUN_LOCKED';
  constructor(
    readonly lockPath: string,
    readonly holder: LockHolder,
  ) {
    super(`another attempt of this run is alive: host ${holder.host}, pid ${holder.pid}, since ${holder.since} (lock ${lockPath})`);
    this.name = 'RunLockedError';
  }
}

export interface RunLockOptions {
  /** How often the holder touches the lock. @default 10000 */
  heartbeatMs?: number;
  /** A lock of another host untouched this long is stale. @default 120000 */
  staleMs?: number;
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
    const heartbeatMs = options.heartbeatMs ?? 10_000;
    const staleMs = options.staleMs ?? 120_000;
    await mkdir(stagingRoot, { recursive: true });
    const lockPath = path.join(stagingRoot, `${runId}.lock`);
    const me: LockHolder = { host: hostname(), pid: process.pid, since: new Date().toISOString(), token: randomBytes(8).toString('hex') };
    for (let tries = 0; tries < 5; tries++) {
      if (await createExclusive(lockPath, me)) {
        const lock = new RunLock(lockPath, me);
        lock.startHeartbeat(heartbeatMs);
        return lock;
      }
      const found = await readHolder(lockPath);
      if (found === 'gone') continue; // released meanwhile: try again
      if (found !== 'unreadable' && (await isAlive(lockPath, found, staleMs))) throw new RunLockedError(lockPath, found);
      if (found === 'unreadable' && (await ageMs(lockPath)) < staleMs) {
        // A lock being written this very moment (or a damaged one, which becomes stale in time).
        throw new RunLockedError(lockPath, { host: '?', pid: 0, since: '?', token: '' });
      }
      await takeOver(lockPath, found === 'unreadable' ? null : found.token, me.token);
    }
    throw new Error(`could not take the lock ${lockPath}: it keeps changing hands`);
  }

  /** Throws when this attempt no longer holds the lock (it was taken over as stale). */
  async assertHeld(): Promise<void> {
    if (this.lost) throw this.lost;
    const found = await readHolder(this.path);
    if (found === 'gone' || found === 'unreadable' || found.token !== this.holder.token) {
      const by = found === 'gone' || found === 'unreadable' ? 'nobody' : `host ${found.host}, pid ${found.pid}`;
      this.lost = new Error(`this run's lock ${this.path} was taken over (now held by ${by}); stopping without committing`);
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

async function isAlive(lockPath: string, holder: LockHolder, staleMs: number): Promise<boolean> {
  if (holder.host === hostname()) {
    if (holder.pid === process.pid) return true; // this very process (a second crawl in one process)
    try {
      process.kill(holder.pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
    }
  }
  return (await ageMs(lockPath)) < staleMs;
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
