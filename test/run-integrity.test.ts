import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tables } from '../schemas/tables.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { bootId, processState } from '../src/store/process-identity.js';
import { listFiles } from './helpers/files.js';
import { adsnapBin, finished, runCli, spawnCli, type CliResult } from './helpers/run-cli.js';
import { snapshotRows, VOLATILE_COLUMNS } from './helpers/snapshot-rows.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * A night's snapshot is the whole truth or nothing, whatever happens to the process: kills inside
 * the commit, two attempts at once, hostile arguments, a list replaced between a kill and the
 * rerun, an empty list. Every case runs the real binary.
 */
const tempDir = useTempDirs('integrity');
const DATE = '2026-11-22';
let web: Simweb;
let tmp: string;
let list: string;
let reference: Record<string, string[]>;

const args = (out: string, extra: string[] = [], domains = list) => ['crawl', '--domains', domains, '--out', out, '--snapshot-date', DATE, '--progress', 'none', '--concurrency', '8', '--checkpoint-interval', '1', ...extra, ...web.connectArgs];

beforeAll(async () => {
  web = await startSimweb({ hosts: 60, latency: { minMs: 5, maxMs: 20 }, hostile: false, apps: 0 });
  tmp = tempDir();
  list = path.join(tmp, 'domains.txt');
  writeFileSync(list, [...web.domains()].join('\n') + '\n');
  const out = path.join(tmp, 'reference');
  const ref = await runCli(args(out));
  expect(ref.code, ref.stderr).toBe(0);
  reference = await snapshotRows(out, VOLATILE_COLUMNS);
}, 60_000);

afterAll(async () => {
  await web?.close();
});

/** Resolves when the child has printed `text` on stderr `times` times. */
function waitForStderr(child: ChildProcess, text: string, times = 1): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) if (l.includes(text) && ++seen === times) {
        child.stderr!.off('data', onData);
        resolve();
      }
    };
    child.stderr!.on('data', onData);
  });
}

const parquetFiles = (out: string) => listFiles(out).filter((f) => f.endsWith('.parquet'));

async function expectSameAsReference(out: string): Promise<void> {
  const got = await snapshotRows(out, VOLATILE_COLUMNS);
  for (const name of Object.keys(tables)) expect(got[name], name).toEqual(reference[name]);
}

describe('the commit can be killed at any step and redone', () => {
  // Once the parts are sealed (before compaction); after the plan is saved; after the first part
  // is linked; after the fifth; after the manifest.
  const steps: [string, number][] = [['sealed', 1], ['planned', 1], ['linked', 1], ['linked', 5], ['manifest', 1]];
  for (const [step, times] of steps) {
    it(`SIGKILL after "${step}" #${times}, then the same command: one copy of every row`, async () => {
      const out = path.join(tmp, `commit-${step}-${times}`);
      // Each step pauses 2 s after saying so on stderr: the kill lands inside that pause.
      const child = spawnCli(args(out), undefined, { ADSNAP_COMMIT_STEP_DELAY_MS: '2000', ADSNAP_COMMIT_PAUSE_STEPS: step });
      child.stdin!.end();
      const exited = finished(child);
      await waitForStderr(child, `commit step ${step}`, times);
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
      const manifests = existsSync(path.join(out, '_runs')) ? readdirSync(path.join(out, '_runs')) : [];
      expect(manifests.length).toBe(step === 'manifest' ? 1 : 0);
      if (step === 'linked') expect(parquetFiles(out).length).toBe(times);

      const again = await runCli(args(out));
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(step === 'manifest' ? 'already complete' : 'resumed from a checkpoint');
      expect(readdirSync(path.join(out, '_staging'))).toEqual([]);
      // Every part on disk is one the manifest lists, once.
      const [manifest] = readdirSync(path.join(out, '_runs'));
      const listed = Object.values((JSON.parse(readFileSync(path.join(out, '_runs', manifest!), 'utf8')) as { tables: Record<string, { parts: string[] }> }).tables).flatMap((t) => t.parts);
      expect(parquetFiles(out).sort()).toEqual([...listed].sort());
      await expectSameAsReference(out);
    }, 90_000);
  }
});

describe('readers see a run whole or not at all', () => {
  it("the views read only the parts a manifest lists: a part published without one is not seen", async () => {
    const out = path.join(tmp, 'orphan');
    cpSync(path.join(tmp, 'reference'), out, { recursive: true });
    // What a kill inside another run's commit would leave: a linked part, no manifest.
    const dir = path.join(out, 'targets', `snapshot_date=${DATE}`);
    const [first] = readdirSync(dir).filter((f) => f.endsWith('.parquet'));
    copyFileSync(path.join(dir, first!), path.join(dir, 'part-09999.parquet'));
    await expectSameAsReference(out);
  });
});

describe('one live attempt per run', () => {
  it('a second attempt exits 75 at once naming the first; the first SIGKILLed, an immediate rerun takes its lock over', async () => {
    const out = path.join(tmp, 'twice');
    const first = spawnCli(args(out), undefined, { ADSNAP_COMMIT_STEP_DELAY_MS: '30000' });
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

describe('arguments are checked before the disk is touched', () => {
  it('--run-id with a path is a usage error, and nothing outside (or inside) --out is created or removed', async () => {
    const victim = path.join(tmp, 'victim');
    mkdirSync(victim, { recursive: true });
    writeFileSync(path.join(victim, 'keep.txt'), 'precious\n');
    const out = path.join(tmp, 'traversal', 'out');
    for (const id of ['../../victim', '../victim', 'a/b', '.', '']) {
      const r = await runCli(args(out, ['--run-id', id]));
      expect(r.code, id).toBe(2);
      expect(r.stderr).toContain('--run-id must be a plain name');
    }
    expect(readFileSync(path.join(victim, 'keep.txt'), 'utf8')).toBe('precious\n');
    expect(existsSync(path.join(tmp, 'traversal'))).toBe(false);
  });

  it('numeric options have upper bounds', async () => {
    const out = path.join(tmp, 'bounds');
    for (const [flag, value] of [['--concurrency', '10000000'], ['--per-ip', '100000'], ['--per-host', '1000'], ['--checkpoint-interval', '999999999'], ['--concurrency', '1e3']]) {
      const r = await runCli(args(out, [flag!, value!]));
      expect(r.code, `${flag} ${value}`).toBe(2);
      expect(r.stderr).toContain(flag!);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('a list that does not exist fails before anything is created', async () => {
    const out = path.join(tmp, 'nolist');
    const r = await runCli(args(out, [], path.join(tmp, 'missing.txt')));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('missing.txt');
    expect(existsSync(out)).toBe(false);
  });
});

describe("the input is part of the run's identity", () => {
  it('a list replaced between a kill and the rerun is refused; --restart crawls the new list from the start', async () => {
    const out = path.join(tmp, 'replaced');
    const mine = path.join(tmp, 'replaced.txt');
    writeFileSync(mine, readFileSync(list));
    const child = spawnCli(args(out, [], mine), undefined, { ADSNAP_COMMIT_STEP_DELAY_MS: '30000' });
    child.stdin!.end();
    const exited = finished(child);
    await waitForStderr(child, 'commit step planned');
    child.kill('SIGKILL');
    await exited;
    // The same path, other contents: every other line of the first 40, and 5 new names.
    const domains = [...web.domains()];
    const replacement = [...domains.slice(0, 40).filter((_, i) => i % 2 === 0), ...domains.slice(40, 45)];
    writeFileSync(mine, replacement.join('\n') + '\n');
    const refused = await runCli(args(out, [], mine));
    expect(refused.code).toBe(2); // configuration: running it again cannot succeed
    expect(refused.stderr).toMatch(/the domains list is not the one run \S+ started with .*--restart/);
    expect(existsSync(path.join(out, '_runs'))).toBe(false);

    const restarted = await runCli(args(out, ['--restart'], mine));
    expect(restarted.code, restarted.stderr).toBe(0);
    const got = await snapshotRows(out, VOLATILE_COLUMNS);
    const targets = got.targets!.map((r) => (JSON.parse(r) as { target: string }).target).sort();
    expect(targets).toEqual([...replacement].sort());
    // Once committed, the same command with yet another list is not "already complete".
    writeFileSync(mine, domains.slice(50).join('\n') + '\n');
    const other = await runCli(args(out, [], mine));
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/was committed from another domains list/);
  }, 90_000);

  it('an empty list exits 2 and creates nothing, naming its malformed lines; the fixed list then crawls', async () => {
    const out = path.join(tmp, 'empty');
    mkdirSync(path.join(tmp, 'empty-list'));
    // Same file name as the reference's list: targets.source is the list's name.
    const mine = path.join(tmp, 'empty-list', 'domains.txt');
    writeFileSync(mine, '# nothing here\n\nnot a domain!\n10.0.0.1\n');
    const r = await runCli(args(out, [], mine));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the domain list ${mine} has no accepted entry (4 lines, 2 malformed); nothing was created\n  line 3: invalid_name: "not a domain!"\n  line 4: ip_address: "10.0.0.1"\n`);
    expect(existsSync(out)).toBe(false);
    writeFileSync(mine, readFileSync(list));
    const fixed = await runCli(args(out, [], mine));
    expect(fixed.code, fixed.stderr).toBe(0);
    await expectSameAsReference(out);
    // --allow-empty commits an empty snapshot on purpose.
    const allowed = path.join(tmp, 'empty-allowed');
    writeFileSync(mine, '\n');
    const a = await runCli(args(allowed, ['--allow-empty'], mine));
    expect(a.code, a.stderr).toBe(0);
    expect(readdirSync(path.join(allowed, '_runs')).length).toBe(1);
  }, 90_000);

  it('stdin needs --run-id, and a different stdin list under the same id is refused', async () => {
    const out = path.join(tmp, 'stdin');
    const base = (extra: string[]) => ['crawl', '--domains', '-', '--out', out, '--snapshot-date', DATE, '--progress', 'none', '--no-sellers', ...extra, ...web.connectArgs];
    const noId = await runCli(base([]), { input: 'a.test\n' });
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('--run-id');
    const domains = [...web.domains()];
    const a = domains.slice(0, 5).join('\n') + '\n';
    const first: CliResult = await runCli(base(['--run-id', 'night-a']), { input: a });
    expect(first.code, first.stderr).toBe(0);
    const same = await runCli(base(['--run-id', 'night-a']), { input: a });
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('already complete');
    const other = await runCli(base(['--run-id', 'night-a']), { input: domains.slice(5, 10).join('\n') + '\n' });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/was committed from another domains list/);
  }, 60_000);
});

describe('bad inputs at the edge: exit 2, and the output folder as it was', () => {
  it('--out naming a file (crawl and report), or a path through a file', async () => {
    const file = path.join(tmp, 'not-a-dir');
    writeFileSync(file, 'precious\n');
    for (const out of [file, path.join(file, 'sub')]) {
      const crawl = await runCli(args(out));
      expect(crawl.code, out).toBe(2);
      expect(crawl.stderr).toMatch(out === file ? `--out ${file} is a file, not a directory` : `--out ${out}: ${file} is a file, so the directory cannot be made`);
      const report = await runCli(['report', path.join(tmp, 'reference'), '--out', out]);
      expect(report.code, out).toBe(2);
      expect(report.stderr).toContain(`${file} is a file`);
    }
    expect(readFileSync(file, 'utf8')).toBe('precious\n');
  });

  it('a list with no accepted entry, into an existing folder or from stdin: exit 2, nothing added', async () => {
    const out = path.join(tmp, 'kept');
    mkdirSync(out);
    writeFileSync(path.join(out, 'notes.txt'), 'mine\n');
    const empty = path.join(tmp, 'only-comments.txt');
    writeFileSync(empty, '# a header comment\n\n');
    const r = await runCli(args(out, [], empty));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has no accepted entry (2 lines, 0 malformed); nothing was created');
    expect(listFiles(out)).toEqual(['notes.txt']);

    const stdinOut = path.join(tmp, 'stdin-empty');
    const s = await runCli(['crawl', '--domains', '-', '--run-id', 'empty-night', '--out', stdinOut, '--snapshot-date', DATE, '--progress', 'none', ...web.connectArgs], { input: 'localhost\n' });
    expect(s.code, s.stderr).toBe(2);
    expect(s.stderr).toContain('the domain list stdin has no accepted entry (1 lines, 1 malformed); nothing was created\n  line 1: localhost: "localhost"');
    expect(existsSync(stdinOut)).toBe(false);
  });

  it('a stale bound shorter than three heartbeats is a usage error', async () => {
    const out = path.join(tmp, 'lock-knobs');
    const r = await runCli(args(out, ['--lock-heartbeat', '5000', '--lock-stale', '10000']));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('must be at least 3 heartbeats (15000 ms)');
    expect(existsSync(out)).toBe(false);
  });

  it('malformed lines of a list that crawls: the first few on stderr with line and reason, and the manifest that keeps them', async () => {
    const out = path.join(tmp, 'malformed');
    const mine = path.join(tmp, 'some-malformed.txt');
    const [a, b] = [...web.domains()];
    writeFileSync(mine, [a, 'not a domain!', b, '192.168.1.1', ...Array.from({ length: 6 }, (_, i) => `bad_${i}!`)].join('\n') + '\n');
    const r = await runCli(args(out, ['--no-sellers'], mine));
    expect(r.code, r.stderr).toBe(0);
    const [manifest] = readdirSync(path.join(out, '_runs'));
    const manifestPath = path.join(out, '_runs', manifest!);
    expect(r.stderr).toContain(
      `adsnap crawl: 8 malformed lines in the domain list (skipped):\n  line 2: invalid_name: "not a domain!"\n  line 4: ip_address: "192.168.1.1"\n  line 5: invalid_name: "bad_0!"\n  line 6: invalid_name: "bad_1!"\n  line 7: invalid_name: "bad_2!"\n  … and 3 more malformed lines\n  the first 8 with their reasons are in ${manifestPath} (list.malformedSamples)\n`,
    );
    const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as { list: { malformedSamples: { lineNo: number }[] }; options: { lock: unknown } };
    expect(m.list.malformedSamples.map((s) => s.lineNo)).toEqual([2, 4, 5, 6, 7, 8, 9, 10]);
    expect(m.options.lock).toEqual({ heartbeat_ms: 5000, stale_ms: 30000 });
  });
});

describe('locks left by attempts that died elsewhere are taken over at once', () => {
  const runIdOf = (root: string) => readdirSync(path.join(root, '_runs'))[0]!.replace(/\.json$/, '');
  const forge = (out: string, holder: Record<string, unknown>, ageMs: number) => {
    mkdirSync(path.join(out, '_staging'), { recursive: true });
    const lock = path.join(out, '_staging', `${runIdOf(path.join(tmp, 'reference'))}.lock`);
    writeFileSync(lock, JSON.stringify({ since: new Date(Date.now() - 3_600_000).toISOString(), token: 'feedfacefeedface', ...holder }));
    const t = new Date(Date.now() - ageMs);
    utimesSync(lock, t, t);
  };

  it('a complete run whose lock a live attempt still holds (cleaning up) is complete: exit 0, its lock left alone', async () => {
    const out = path.join(tmp, 'complete-locked');
    cpSync(path.join(tmp, 'reference'), out, { recursive: true });
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
    const out = path.join(tmp, 'pid1');
    forge(out, { host: hostname(), pid: 1, startTicks: 1, bootId: bootId(), startedAtMs: Date.now() - 60_000 }, 0);
    const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, adsnapBin, ...args(out)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const r = await finished(child);
    expect(r.code, r.stderr).toBe(0);
    await expectSameAsReference(out);
  }, 90_000);

  it('a lock of another host whose heartbeat is 45 s old', async () => {
    const out = path.join(tmp, 'other-host');
    forge(out, { host: 'adsnap-targets-2-q8x4z', pid: 1, bootId: 'a-replaced-pod' }, 45_000);
    const r = await runCli(args(out));
    expect(r.code, r.stderr).toBe(0);
    await expectSameAsReference(out);
  }, 90_000);

  it('a lock naming a live pid that is not its writer, its heartbeat older than --lock-stale', async () => {
    const out = path.join(tmp, 'reused-pid');
    // This test process is alive, but it never wrote that lock (another start time).
    forge(out, { host: hostname(), pid: process.pid, startTicks: 1, startedAtMs: 1 }, 25_000);
    const r = await runCli(args(out, ['--lock-heartbeat', '2000', '--lock-stale', '20000']));
    expect(r.code, r.stderr).toBe(0);
    await expectSameAsReference(out);
    const m = JSON.parse(readFileSync(path.join(out, '_runs', `${runIdOf(out)}.json`), 'utf8')) as { options: { lock: unknown } };
    expect(m.options.lock).toEqual({ heartbeat_ms: 2000, stale_ms: 20000 });
  }, 90_000);
});
