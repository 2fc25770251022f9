import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tables } from '../schemas/tables.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { repoRoot } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';
import { snapshotRows } from './helpers/snapshot-rows.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('reparse');

const fixtures = path.join(repoRoot, 'data-samples', 'simweb-fixtures');
let web: Simweb;
let tmp: string;

beforeAll(async () => {
  web = await startSimweb({ hosts: 40, apps: 4, hostile: false, fixturesDir: fixtures });
  tmp = tempDir();
});

afterAll(async () => {
  await web?.close();
});

describe('adsnap reparse', () => {
  it('rebuilds every table of a snapshot from its kept bodies, without fetching, row for row', async () => {
    const list = path.join(tmp, 'domains.txt');
    writeFileSync(list, [...web.domains()].join('\n') + '\n' + readFileSync(path.join(fixtures, 'domains.txt'), 'utf8'));
    const crawled = path.join(tmp, 'crawled');
    const c = await runCli(['crawl', '--domains', list, '--apps', path.join(fixtures, 'apps.txt'), '--out', crawled, '--snapshot-date', '2026-11-22', '--progress', 'none', ...web.connectArgs]);
    expect(c.code, c.stderr).toBe(0);
    const before = web.stats().requests;

    const rebuilt = path.join(tmp, 'rebuilt');
    const r = await runCli(['reparse', crawled, '--out', rebuilt]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/reparsed snapshot 2026-11-22: \d+ files parsed again/);
    expect(web.stats().requests).toBe(before); // nothing fetched

    const [want, got] = [await snapshotRows(crawled), await snapshotRows(rebuilt)];
    for (const name of Object.keys(tables)) expect(got[name], name).toEqual(want[name]);
    expect(want.ads_records!.length).toBeGreaterThan(100);
  }, 120_000);

  it('refuses to overwrite its source and reports usage errors with exit 2', async () => {
    const same = await runCli(['reparse', tmp, '--out', tmp]);
    expect([same.code, same.stderr]).toEqual([2, expect.stringContaining('reparse writes a rebuilt snapshot to another --out directory')]);
    const none = await runCli(['reparse']);
    expect(none.code).toBe(2);
    // A date is a date: nothing of it reaches SQL as text.
    for (const bad of ["2026-01-01' OR 1=1 --", '2026-02-30', 'yesterday']) {
      const r = await runCli(['reparse', tmp, '--out', path.join(tmp, 'never'), '--snapshot-date', bad]);
      expect([r.code, r.stderr], bad).toEqual([2, expect.stringContaining('--snapshot-date must be a calendar date YYYY-MM-DD')]);
    }
  });
});
