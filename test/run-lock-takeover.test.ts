import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootId, processState } from '../src/store/process-identity.js';
import { useIntegrityRun, waitForStderr } from './helpers/integrity-run.js';
import { adsnapBin, finished, runCli, spawnCli } from './helpers/run-cli.js';

/**
 * One live attempt per run, and locks left by attempts that died (a SIGKILL, a container restarted
 * as pid 1, a replaced pod on another host, a pid reused by another process) taken over at once.
 * Every case runs the real binary against the reference snapshot of an uninterrupted crawl.
 */
const run = useIntegrityRun('lock-takeover');
const { args, expectSameAsReference } = run;

describe('one live attempt per run', () => {
  it('a second attempt exits 75 at once naming the first; the first SIGKILLed, an immediate rerun takes its lock over', async () => {
    const out = path.join(run.tmp, 'twice');
    const first = spawnCli(args(out), undefined, { ADSNAP_COMMIT_STEP_DELAY_MS: '30000', ADSNAP_COMMIT_PAUSE_STEPS: 'planned' });
    first.stdin!.end();
    const firstDone = finished(first);
    await waitForStderr(first, 'commit step planned');
    const second = await runCli(args(out));
    expect(second.code).toBe(75);
    expect(second.stderr).toMatch(new RegExp(`another attempt of this run is alive: host ${hostname()}, pid ${first.pid}, since \\S+, last heartbeat \\d+\\.\\d s ago`));
    // The second attempt touched nothing: the first's staged parts and plan are intact.
    // The rerun starts the instant the kill is sent, without waiting for the first to be gone.
    first.kill('SIGKILL');
    const third = await runCli(args(out));
    await firstDone;
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain('resumed from a checkpoint');
    await expectSameAsReference(out);
  }, 90_000);
});

describe('locks left by attempts that died elsewhere are taken over at once', () => {
  const runIdOf = (root: string) => readdirSync(path.join(root, '_runs'))[0]!.replace(/\.json$/, '');
  const forge = (out: string, holder: Record<string, unknown>, ageMs: number) => {
    mkdirSync(path.join(out, '_staging'), { recursive: true });
    const lock = path.join(out, '_staging', `${runIdOf(path.join(run.tmp, 'reference'))}.lock`);
    writeFileSync(lock, JSON.stringify({ since: new Date(Date.now() - 3_600_000).toISOString(), token: 'feedfacefeedface', ...holder }));
    const t = new Date(Date.now() - ageMs);
    utimesSync(lock, t, t);
  };

  it('a complete run whose lock a live attempt still holds (cleaning up) is complete: exit 0, its lock left alone', async () => {
    const out = path.join(run.tmp, 'complete-locked');
    cpSync(path.join(run.tmp, 'reference'), out, { recursive: true });
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => holder.once('spawn', r));
      const st = await processState(holder.pid!);
      forge(out, { host: hostname(), pid: holder.pid, startTicks: st.kind === 'running' ? st.startTicks : null, bootId: bootId() }, 0);
      const r = await runCli(args(out));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('already complete');
      expect(readdirSync(path.join(out, '_staging'))).toEqual([`${runIdOf(out)}.lock`]);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  // A container started again (docker --restart, a Kubernetes container restart) runs adsnap as pid 1
  // on the same hostname: the lock its earlier self left names pid 1 too, with a fresh heartbeat.
  // Here the rerun is pid 1 of a new pid namespace (unshare(1), root only), as in a container.
  const canUnshare = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;
  it.skipIf(!canUnshare)('a run started again as pid 1 takes over the lock its earlier pid 1 left (fresh heartbeat)', async () => {
    const out = path.join(run.tmp, 'pid1');
    forge(out, { host: hostname(), pid: 1, startTicks: 1, bootId: bootId(), startedAtMs: Date.now() - 60_000 }, 0);
    const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, adsnapBin, ...args(out)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const r = await finished(child);
    expect(r.code, r.stderr).toBe(0);
    await expectSameAsReference(out);
  }, 90_000);

  it('a lock of another host whose heartbeat is 45 s old', async () => {
    const out = path.join(run.tmp, 'other-host');
    forge(out, { host: 'adsnap-targets-2-q8x4z', pid: 1, bootId: 'a-replaced-pod' }, 45_000);
    const r = await runCli(args(out));
    expect(r.code, r.stderr).toBe(0);
    await expectSameAsReference(out);
  }, 90_000);

  it('a lock naming a live pid that is not its writer, its heartbeat older than --lock-stale', async () => {
    const out = path.join(run.tmp, 'reused-pid');
    // This test process is alive, but it never wrote that lock (another start time).
    forge(out, { host: hostname(), pid: process.pid, startTicks: 1, startedAtMs: 1 }, 25_000);
    const r = await runCli(args(out, ['--lock-heartbeat', '2000', '--lock-stale', '20000']));
    expect(r.code, r.stderr).toBe(0);
    await expectSameAsReference(out);
    const m = JSON.parse(readFileSync(path.join(out, '_runs', `${runIdOf(out)}.json`), 'utf8')) as { options: { lock: unknown } };
    expect(m.options.lock).toEqual({ heartbeat_ms: 2000, stale_ms: 20000 });
  }, 90_000);
});
