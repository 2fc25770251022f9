import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootId, parseStat, processState, selfIdentity, sigkillPending } from '../src/store/process-identity.js';
import { resolveRunLockOptions, RunLock, RunLockedError, RunLockLostError, type LockHolder } from '../src/store/run-lock.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * The run lock judged as real deployments restart runs: by heartbeat first, then (same machine)
 * by the very process that wrote it. Holders are real processes; forged locks are files as a dead
 * or replaced holder leaves them.
 */
const tempDir = useTempDirs('run-lock');
const hasProc = existsSync('/proc/self/stat');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A live process of ours that is not this one, and its start time as /proc gives it. */
async function liveChild(): Promise<{ pid: number; startTicks: number | null }> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((r) => child.once('spawn', r));
  const st = await processState(child.pid!);
  return { pid: child.pid!, startTicks: st.kind === 'running' ? st.startTicks : null };
}

function forge(dir: string, holder: Partial<LockHolder>, heartbeatAgeMs: number): string {
  const lockPath = path.join(dir, 'run.lock');
  const full: LockHolder = { host: hostname(), pid: 1, since: new Date(Date.now() - 3_600_000).toISOString(), token: 'f0f0f0f0f0f0f0f0', bootId: bootId(), ...holder };
  writeFileSync(lockPath, JSON.stringify(full));
  const t = new Date(Date.now() - heartbeatAgeMs);
  utimesSync(lockPath, t, t);
  return lockPath;
}

async function takes(dir: string): Promise<RunLock> {
  const lock = await RunLock.acquire(dir, 'run');
  const held = JSON.parse(readFileSync(lock.path, 'utf8')) as LockHolder;
  expect(held.token).toBe(lock.holder.token);
  expect(held.pid).toBe(process.pid);
  return lock;
}

describe('heartbeat first', () => {
  it('a lock with a live pid that is not its writer and a heartbeat older than the bound is taken over', async () => {
    const dir = tempDir();
    const child = await liveChild();
    // The pid runs, but it is not the process that wrote the lock (another start time).
    forge(dir, { pid: child.pid, startTicks: (child.startTicks ?? 0) + 1 }, 45_000);
    await (await takes(dir)).release();
  });

  it("a live holder whose heartbeat is older than the bound is stale all the same (a frozen holder)", async () => {
    const dir = tempDir();
    const child = await liveChild();
    forge(dir, { pid: child.pid, startTicks: child.startTicks }, 31_000);
    await (await takes(dir)).release();
  });

  it('a lock of another host with a heartbeat 45 s old is taken over; one 2 s old is alive and named', async () => {
    const dir = tempDir();
    forge(dir, { host: 'adsnap-targets-3-x7k2p', pid: 7, bootId: 'another-boot' }, 45_000);
    await (await takes(dir)).release();

    const lockPath = forge(dir, { host: 'adsnap-targets-3-x7k2p', pid: 7, bootId: 'another-boot' }, 2_000);
    const err = await RunLock.acquire(dir, 'run').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunLockedError);
    expect((err as Error).message).toMatch(new RegExp(`^another attempt of this run is alive: host adsnap-targets-3-x7k2p, pid 7, since \\S+, last heartbeat [23]\\.\\d s ago \\(lock ${lockPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
  });

  it("the holder's announced stale bound is the one used (a slow heartbeat is not taken for death)", async () => {
    const dir = tempDir();
    forge(dir, { host: 'elsewhere', bootId: 'b', heartbeatMs: 30_000, staleMs: 90_000 }, 45_000);
    await expect(RunLock.acquire(dir, 'run')).rejects.toBeInstanceOf(RunLockedError);
  });

  it('the holder touches its lock every heartbeat', async () => {
    const dir = tempDir();
    const lock = await RunLock.acquire(dir, 'run', { heartbeatMs: 50, staleMs: 150 });
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock.path, old, old);
    const age = () => Date.now() - statSync(lock.path).mtimeMs;
    // Waits for the next beat (at most a few on a loaded machine), not for a set time.
    for (const deadline = Date.now() + 10_000; age() > 5_000 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 25));
    expect(age()).toBeLessThan(5_000);
    await lock.assertHeld();
    await lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe.skipIf(!hasProc)('on this machine: the process that wrote the lock, not its pid', () => {
  it('a fresh lock of a live holder fails at once, naming it', async () => {
    const dir = tempDir();
    const child = await liveChild();
    forge(dir, { pid: child.pid, startTicks: child.startTicks, since: '2026-11-26T17:00:00.000Z' }, 0);
    const t0 = performance.now();
    const err = await RunLock.acquire(dir, 'run').catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(err).toBeInstanceOf(RunLockedError);
    expect((err as Error).message).toContain(`host ${hostname()}, pid ${child.pid}, since 2026-11-26T17:00:00.000Z`);
  });

  it('a fresh lock whose pid is now another process (reused pid) is taken over at once', async () => {
    const dir = tempDir();
    const child = await liveChild();
    forge(dir, { pid: child.pid, startTicks: child.startTicks! - 100 }, 0);
    await (await takes(dir)).release();
  });

  it('our own pid written by an earlier process (a container restarted as pid 1) is not us', async () => {
    const dir = tempDir();
    const self = selfIdentity();
    forge(dir, { pid: process.pid, startTicks: self.startTicks! - 1, startedAtMs: self.startedAtMs - 5_000 }, 0);
    await (await takes(dir)).release();
  });

  it('a second lock in this very process is refused (same pid, same start)', async () => {
    const dir = tempDir();
    const lock = await RunLock.acquire(dir, 'run');
    await expect(RunLock.acquire(dir, 'run')).rejects.toBeInstanceOf(RunLockedError);
    await lock.release();
  });

  it('a holder killed and not yet reaped (a zombie) does not hold the lock', async () => {
    const dir = tempDir();
    // sh starts a child that exits a second later, then becomes `sleep`, which never reaps it: a
    // zombie. The child outlives the exec: one that exited before it could be reaped by sh itself.
    const sh = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(sh);
    const pid = Number(await new Promise<string>((r) => sh.stdout!.once('data', (d: Buffer) => r(d.toString().trim()))));
    let stat = null;
    for (let i = 0; i < 500 && stat?.state !== 'Z'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    }
    expect(stat?.state).toBe('Z');
    expect((await processState(pid)).kind).toBe('exiting');
    forge(dir, { pid, startTicks: stat!.startTicks }, 0);
    await (await takes(dir)).release();
  });

  it('a dead pid holds nothing', async () => {
    const dir = tempDir();
    const child = await liveChild();
    const gone = new Promise((r) => children[0]!.once('exit', r));
    children[0]!.kill('SIGKILL');
    await gone;
    forge(dir, { pid: child.pid, startTicks: child.startTicks }, 0);
    await (await takes(dir)).release();
  });
});

describe('take-over', () => {
  it('two takers at once: exactly one wins, the other is told the winner is alive', async () => {
    for (let round = 0; round < 20; round++) {
      const dir = tempDir();
      forge(dir, { host: 'gone-pod', bootId: 'x' }, 60_000);
      const results = await Promise.allSettled([RunLock.acquire(dir, 'run'), RunLock.acquire(dir, 'run')]);
      const won = results.filter((r): r is PromiseFulfilledResult<RunLock> => r.status === 'fulfilled');
      expect(won.length, `round ${round}`).toBe(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(RunLockedError);
      await won[0]!.value.assertHeld();
      await won[0]!.value.release();
      expect(readdirSync(dir), 'no file left aside').toEqual([]);
    }
  });

  it('six takers at once: one holds the lock; any other that thought it won learns at its next check that it did not', async () => {
    for (let round = 0; round < 10; round++) {
      const dir = tempDir();
      forge(dir, { host: 'gone-pod', bootId: 'x' }, 60_000);
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => RunLock.acquire(dir, 'run')));
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(RunLockedError);
      const won = results.filter((r): r is PromiseFulfilledResult<RunLock> => r.status === 'fulfilled').map((r) => r.value);
      const checks = await Promise.allSettled(won.map((l) => l.assertHeld()));
      expect(checks.filter((c) => c.status === 'fulfilled').length, `round ${round}`).toBe(1);
      for (const c of checks) if (c.status === 'rejected') expect(c.reason).toBeInstanceOf(RunLockLostError);
      for (const l of won) await l.release();
      expect(readdirSync(dir), 'no file left aside').toEqual([]);
    }
  });

  it('a holder whose lock was taken over learns it and stops (RunLockLostError)', async () => {
    const dir = tempDir();
    const first = await RunLock.acquire(dir, 'run', { heartbeatMs: 60_000, staleMs: 180_000 });
    // Its heartbeat stops (a frozen process) and the file ages past the bound; another host's attempt takes it.
    const old = new Date(Date.now() - 200_000);
    utimesSync(first.path, old, old);
    const taker = { ...JSON.parse(readFileSync(first.path, 'utf8')), host: 'other' } as LockHolder;
    writeFileSync(first.path, JSON.stringify(taker));
    utimesSync(first.path, old, old);
    const second = await RunLock.acquire(dir, 'run');
    await expect(first.assertHeld()).rejects.toBeInstanceOf(RunLockLostError);
    await first.release(); // leaves the new holder's lock alone
    await second.assertHeld();
    await second.release();
  });
});

describe('options and /proc parsing', () => {
  it('the stale bound must span three heartbeats; defaults are 5 s and 30 s', () => {
    expect(resolveRunLockOptions()).toEqual({ heartbeatMs: 5_000, staleMs: 30_000 });
    expect(() => resolveRunLockOptions({ heartbeatMs: 20_000, staleMs: 30_000 })).toThrow(/at least 3 heartbeats \(60000 ms\)/);
    expect(() => resolveRunLockOptions({ heartbeatMs: 0 })).toThrow(/heartbeatMs must be a positive integer/);
  });

  it('reads state, flags and start time past a process name with spaces and parentheses', () => {
    const line = '4242 (a (b) c) S 1 4242 4242 0 -1 4194560 99 0 0 0 0 0 0 0 20 0 1 0 21987 3133440 380 18446744073709551615';
    expect(parseStat(line)).toEqual({ state: 'S', flags: 4194560, startTicks: 21987 });
    expect(parseStat('garbage')).toBeNull();
  });

  it('a pending SIGKILL in SigPnd or ShdPnd marks a holder as going', () => {
    expect(sigkillPending('SigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n')).toBe(true);
    expect(sigkillPending('SigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n')).toBe(true);
    expect(sigkillPending('SigPnd:\t0000000000004000\nShdPnd:\t0000000000000000\n')).toBe(false);
  });
});
