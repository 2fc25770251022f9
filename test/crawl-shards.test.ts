import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tables } from '../schemas/tables.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { fnv1a, ownerOf, ownsApp, parseShard } from '../src/util/shard.js';
import { repoRoot } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';
import { snapshotRows, VOLATILE_COLUMNS } from './helpers/snapshot-rows.js';
import { useTempDirs } from './helpers/tmp.js';
import { derivedAgainstViews } from './helpers/derived-check.js';
import { readMarker } from '../src/sql/derived.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';

const tempDir = useTempDirs('shards');

const fixtures = path.join(repoRoot, 'data-samples', 'simweb-fixtures');
let web: Simweb;
let tmp: string;
let domains: string;
let apps: string;

beforeAll(async () => {
  web = await startSimweb({ hosts: 60, apps: 12, hostile: false, fixturesDir: fixtures });
  tmp = tempDir();
  domains = path.join(tmp, 'domains.txt');
  apps = path.join(tmp, 'apps.txt');
  const fixtureDomains = readFileSync(path.join(fixtures, 'domains.txt'), 'utf8');
  const fixtureApps = readFileSync(path.join(fixtures, 'apps.txt'), 'utf8');
  writeFileSync(domains, [...web.domains()].join('\n') + '\n' + fixtureDomains);
  writeFileSync(apps, [...web.apps()].join('\n') + '\n' + fixtureApps);
});

afterAll(async () => {
  await web?.close();
});


describe('--shard K/N', () => {
  it('partitions by registrable domain, stably', () => {
    expect(parseShard('2/8')).toEqual({ index: 2, count: 8 });
    expect(() => parseShard('8/8')).toThrow(/0 ≤ K < N/);
    expect(() => parseShard('x')).toThrow(/K\/N/);
    expect(fnv1a('example.com')).toBe(fnv1a('example.com'));
    expect(ownerOf('news.example.com', 7)).toBe(ownerOf('example.com', 7)); // a domain's subdomains stay with it
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[ownerOf(`site-${i}.com`, 4)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(850);
    // Apps by their key: each one crawled by exactly one of N shards, every one by an unsharded run.
    for (let i = 0; i < 200; i++) {
      const key = `play:com.example.app${i}`;
      expect([0, 1, 2].filter((k) => ownsApp({ index: k, count: 3 }, key))).toEqual([fnv1a(key) % 3]);
      expect(ownsApp(null, key)).toBe(true);
    }
  });

  it('the union of N shards equals a single-machine run, row for row', async () => {
    const common = ['--domains', domains, '--apps', apps, '--snapshot-date', '2026-11-22', '--progress', 'none', '--concurrency', '16', ...web.connectArgs];
    const single = path.join(tmp, 'single');
    const one = await runCli(['crawl', ...common, '--out', single]);
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);

    const sharded = path.join(tmp, 'sharded');
    const N = 3;
    // A stage of a shard refuses to run before every shard finished the previous stage: retry later (75).
    const early = await runCli(['crawl', ...common, '--out', sharded, '--shard', `0/${N}`, '--stage', 'referrals']);
    expect(early.code).toBe(75);
    expect(early.stderr).toMatch(/not finished by shard\(s\) 0, 1, 2/);
    for (const stage of ['targets', 'referrals', 'sellers']) {
      const runs = await Promise.all(Array.from({ length: N }, (_, k) => runCli(['crawl', ...common, '--out', sharded, '--shard', `${k}/${N}`, '--stage', stage])));
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
    }
    // The sellers.json rounds after the ad systems' are a stage of their own, run once
    // (shard 0): each round needs every file of the round before.
    const other = await runCli(['crawl', ...common, '--out', sharded, '--shard', `1/${N}`, '--stage', 'intermediaries']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/runs once, as --shard 0\/3/);
    const rounds = await runCli(['crawl', ...common, '--out', sharded, '--shard', `0/${N}`, '--stage', 'intermediaries']);
    expect(rounds.code, rounds.stderr).toBe(0);
    const [want, got] = [await snapshotRows(single, VOLATILE_COLUMNS), await snapshotRows(sharded, VOLATILE_COLUMNS)];
    for (const name of Object.keys(tables)) expect(got[name], name).toEqual(want[name]);
    expect(want.files!.length).toBeGreaterThan(100);
    expect(want.apps!.length).toBe(14);
    // The rounds are in both: the fixtures' chain (partner-ctv.test, then reseller-chain.test) and
    // the synthetic ad systems' intermediaries.
    const intermediaries = want.files!.filter((r) => r.includes('"via":"intermediary"') && r.includes('"file_kind":"sellers.json"'));
    expect(intermediaries.some((r) => r.includes('"subject":"reseller-chain.test"'))).toBe(true);
    expect(intermediaries.length).toBeGreaterThan(10);
    // One derived set for the union of the night's runs, written once by the stage that completes
    // the night (intermediaries), equal to the views; the same numbers as the single crawl's.
    const marker = (await readMarker(sharded, '2026-11-22'))!;
    expect(marker.runs).toHaveLength(3 * N + 1);
    expect(readdirSync(path.join(sharded, '_derived', 'headline_figures', 'snapshot_date=2026-11-22'))).toHaveLength(1);
    expect(await derivedAgainstViews(sharded, '2026-11-22')).toEqual([]);
    const headline = async (root: string) => {
      const db = await openSnapshotDb(root);
      try {
        return await db.rows(`SELECT key, n, denominator, value FROM headline_figures ORDER BY key`);
      } finally {
        db.close();
      }
    };
    expect(await headline(sharded)).toEqual(await headline(single));
  }, 480_000);
});
