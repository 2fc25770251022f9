/**
 * Which process a pid names, so that a lock names its holder by more than a pid. A pid is reused:
 * a container started again runs the same program as pid 1 on the same hostname, and any process
 * may get a dead holder's pid. A process is named by its pid, its start time in clock ticks since
 * boot (`/proc/PID/stat` field 22, proc(5)) and the kernel's boot id
 * (`/proc/sys/kernel/random/boot_id`): two processes with the same three are the same process.
 *
 * Where /proc is absent (macOS), the start time is null and the caller falls back on
 * `kill(pid, 0)` and the lock's heartbeat; our own process is still told apart by the instant it
 * started (`performance.timeOrigin`), which the lock records as well.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

export interface ProcessIdentity {
  pid: number;
  /** `/proc/PID/stat` field 22 (clock ticks after boot), or null without /proc. */
  startTicks: number | null;
  /** The kernel's boot id, or null without /proc. */
  bootId: string | null;
  /** When this process started (ms since the epoch; `performance.timeOrigin`), for the fallback. */
  startedAtMs: number;
}

/** What /proc says of a pid now. */
export type ProcessState =
  | { kind: 'absent' }
  /** A zombie, or a process already exiting (PF_EXITING) or with a SIGKILL pending: a holder being torn down. */
  | { kind: 'exiting' }
  | { kind: 'running'; startTicks: number }
  /** No /proc: existence only (kill(pid, 0)). */
  | { kind: 'unknown'; exists: boolean };

/** PF_EXITING in `/proc/PID/stat` field 9 (include/linux/sched.h): the process is in do_exit(). */
const PF_EXITING = 0x4;
/** SIGKILL (9) as a bit of the pending-signal masks of `/proc/PID/status` (SigPnd, ShdPnd). */
const SIGKILL_BIT = 1n << 8n;

let bootIdCache: string | null | undefined;

export function bootId(): string | null {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache;
}

let selfCache: ProcessIdentity | undefined;

/** This process. */
export function selfIdentity(): ProcessIdentity {
  if (!selfCache) {
    let startTicks: number | null = null;
    try {
      startTicks = parseStat(readFileSync(`/proc/${process.pid}/stat`, 'utf8'))?.startTicks ?? null;
    } catch {
      // no /proc
    }
    selfCache = { pid: process.pid, startTicks, bootId: bootId(), startedAtMs: Math.round(performance.timeOrigin) };
  }
  return selfCache;
}

/** Fields 3 (state), 9 (flags) and 22 (starttime) of a `/proc/PID/stat` line; the name (field 2) may hold spaces and parentheses. */
export function parseStat(text: string): { state: string; flags: number; startTicks: number } | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const f = text.slice(close + 2).split(' ');
  const state = f[0];
  const flags = Number(f[6]);
  const startTicks = Number(f[19]);
  if (!state || !Number.isFinite(flags) || !Number.isSafeInteger(startTicks)) return null;
  return { state, flags, startTicks };
}

/** A SIGKILL waits in a pending mask of `/proc/PID/status` (the process is as good as gone). */
export function sigkillPending(statusText: string): boolean {
  for (const m of statusText.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gim)) if ((BigInt(`0x${m[1]}`) & SIGKILL_BIT) !== 0n) return true;
  return false;
}

export async function processState(pid: number): Promise<ProcessState> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return { kind: 'absent' };
  if (bootId() === null) return { kind: 'unknown', exists: exists(pid) };
  let stat;
  try {
    stat = parseStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    // Gone, or hidden from us (/proc mounted with hidepid): kill(pid, 0) tells which.
    return exists(pid) ? { kind: 'unknown', exists: true } : { kind: 'absent' };
  }
  if (!stat) return { kind: 'unknown', exists: exists(pid) };
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x' || (stat.flags & PF_EXITING) !== 0) return { kind: 'exiting' };
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  if (sigkillPending(status)) return { kind: 'exiting' };
  return { kind: 'running', startTicks: stat.startTicks };
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}
