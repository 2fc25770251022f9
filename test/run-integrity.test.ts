import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATE, parquetFiles, useIntegrityRun, waitForStderr } from './helpers/integrity-run.js';
import { finished, runCli, spawnCli, type CliResult } from './helpers/run-cli.js';
import { snapshotRows, VOLATILE_COLUMNS } from './helpers/snapshot-rows.js';

/**
 * A night's snapshot is the whole truth or nothing, whatever happens to the process: kills inside
 * the commit, hostile arguments, a list replaced between a kill and the rerun, an empty list.
 * Every case runs the real binary. Locks: run-lock-takeover.test.ts; bad inputs at the edge:
 * run-bad-inputs.test.ts.
 */
const run = useIntegrityRun('integrity');
const { args, expectSameAsReference } = run;

describe('the commit can be killed at any step and redone', () => {
  // Once the parts are sealed (before compaction); after the plan is saved; after the first part
  // is linked; after the fifth; after the manifest.
  const steps: [string, number][] = [['sealed', 1], ['planned', 1], ['linked', 1], ['linked', 5], ['manifest', 1]];
  for (const [step, times] of steps) {
    it(`SIGKILL after "${step}" #${times}, then the same command: one copy of every row`, async () => {
      const out = path.join(run.tmp, `commit-${step}-${times}`);
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
    const out = path.join(run.tmp, 'orphan');
    cpSync(path.join(run.tmp, 'reference'), out, { recursive: true });
    // What a kill inside another run's commit would leave: a linked part, no manifest.
    const dir = path.join(out, 'targets', `snapshot_date=${DATE}`);
    const [first] = readdirSync(dir).filter((f) => f.endsWith('.parquet'));
    copyFileSync(path.join(dir, first!), path.join(dir, 'part-09999.parquet'));
    await expectSameAsReference(out);
  });
});

describe('arguments are checked before the disk is touched', () => {
  it('--run-id with a path is a usage error, and nothing outside (or inside) --out is created or removed', async () => {
    const victim = path.join(run.tmp, 'victim');
    mkdirSync(victim, { recursive: true });
    writeFileSync(path.join(victim, 'keep.txt'), 'precious\n');
    const out = path.join(run.tmp, 'traversal', 'out');
    for (const id of ['../../victim', '../victim', 'a/b', '.', '']) {
      const r = await runCli(args(out, ['--run-id', id]));
      expect(r.code, id).toBe(2);
      expect(r.stderr).toContain('--run-id must be a plain name');
    }
    expect(readFileSync(path.join(victim, 'keep.txt'), 'utf8')).toBe('precious\n');
    expect(existsSync(path.join(run.tmp, 'traversal'))).toBe(false);
  });

  it('numeric options have upper bounds', async () => {
    const out = path.join(run.tmp, 'bounds');
    for (const [flag, value] of [['--concurrency', '10000000'], ['--per-ip', '100000'], ['--per-host', '1000'], ['--checkpoint-interval', '999999999'], ['--concurrency', '1e3']]) {
      const r = await runCli(args(out, [flag!, value!]));
      expect(r.code, `${flag} ${value}`).toBe(2);
      expect(r.stderr).toContain(flag!);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('a list that does not exist fails before anything is created', async () => {
    const out = path.join(run.tmp, 'nolist');
    const r = await runCli(args(out, [], path.join(run.tmp, 'missing.txt')));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('missing.txt');
    expect(existsSync(out)).toBe(false);
  });
});

describe("the input is part of the run's identity", () => {
  it('a list replaced between a kill and the rerun is refused; --restart crawls the new list from the start', async () => {
    const out = path.join(run.tmp, 'replaced');
    const mine = path.join(run.tmp, 'replaced.txt');
    writeFileSync(mine, readFileSync(run.list));
    const child = spawnCli(args(out, [], mine), undefined, { ADSNAP_COMMIT_STEP_DELAY_MS: '30000', ADSNAP_COMMIT_PAUSE_STEPS: 'planned' });
    child.stdin!.end();
    const exited = finished(child);
    await waitForStderr(child, 'commit step planned');
    child.kill('SIGKILL');
    await exited;
    // The same path, other contents: every other line of the first 40, and 5 new names.
    const domains = [...run.web.domains()];
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
    const out = path.join(run.tmp, 'empty');
    mkdirSync(path.join(run.tmp, 'empty-list'));
    // Same file name as the reference's list: targets.source is the list's name.
    const mine = path.join(run.tmp, 'empty-list', 'domains.txt');
    writeFileSync(mine, '# nothing here\n\nnot a domain!\n10.0.0.1\n');
    const r = await runCli(args(out, [], mine));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the domain list ${mine} has no accepted entry (4 lines, 2 malformed); nothing was created\n  line 3: invalid_name: "not a domain!"\n  line 4: ip_address: "10.0.0.1"\n`);
    expect(existsSync(out)).toBe(false);
    writeFileSync(mine, readFileSync(run.list));
    const fixed = await runCli(args(out, [], mine));
    expect(fixed.code, fixed.stderr).toBe(0);
    await expectSameAsReference(out);
    // --allow-empty commits an empty snapshot on purpose.
    const allowed = path.join(run.tmp, 'empty-allowed');
    writeFileSync(mine, '\n');
    const a = await runCli(args(allowed, ['--allow-empty'], mine));
    expect(a.code, a.stderr).toBe(0);
    expect(readdirSync(path.join(allowed, '_runs')).length).toBe(1);
  }, 90_000);

  it('stdin needs --run-id, and a different stdin list under the same id is refused', async () => {
    const out = path.join(run.tmp, 'stdin');
    const base = (extra: string[]) => ['crawl', '--domains', '-', '--out', out, '--snapshot-date', DATE, '--progress', 'none', '--no-sellers', ...extra, ...run.web.connectArgs];
    const noId = await runCli(base([]), { input: 'a.test\n' });
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('--run-id');
    const domains = [...run.web.domains()];
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
