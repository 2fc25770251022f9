import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tables } from '../schemas/tables.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { finished, runCli, spawnCli } from './helpers/run-cli.js';
import { snapshotRows, VOLATILE_COLUMNS } from './helpers/snapshot-rows.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('resume');

/**
 * A crawl killed with SIGKILL mid-way and started again with the same arguments
 * finishes the same snapshot as an uninterrupted run — no duplicate and no missing row.
 */
let web: Simweb;
let tmp: string;
let list: string;

beforeAll(async () => {
  web = await startSimweb({ hosts: 160, latency: { minMs: 20, maxMs: 60 }, hostile: false, apps: 0 });
  tmp = tempDir();
  list = path.join(tmp, 'domains.txt');
  writeFileSync(list, [...web.domains()].join('\n') + '\n');
});

afterAll(async () => {
  await web?.close();
});

// The kill lands in the domains phase; --sellers-depth 0 leaves out the intermediaries' rounds,
// whose own kills and resumes are test/sellers-rounds.test.ts's.
const args = (out: string) => ['crawl', '--domains', list, '--out', out, '--snapshot-date', '2026-11-22', '--progress', 'none', '--concurrency', '8', '--checkpoint-interval', '1', '--sellers-depth', '0', ...web.connectArgs];


describe('crash-safe resume', () => {
  it('SIGKILL mid-crawl, same command again: the same rows as an uninterrupted run', async () => {
    const reference = path.join(tmp, 'reference');
    const ref = await runCli(args(reference));
    expect(ref.code).toBe(0);

    const out = path.join(tmp, 'killed');
    const child = spawnCli(args(out));
    child.stdin!.end();
    const exited = finished(child);
    // Kill it once a checkpoint with some domains done exists (and the crawl is still going).
    const staging = path.join(out, '_staging');
    for (let i = 0; i < 400; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const runs = existsSync(staging) ? await readdir(staging) : [];
      const state = runs.length ? path.join(staging, runs[0]!, 'state.json') : '';
      if (state && existsSync(state) && JSON.parse(readFileSync(state, "utf8")).done.domains.prefix > 0) break;
    }
    child.kill('SIGKILL');
    const killed = await exited;
    expect(killed.signal).toBe('SIGKILL');
    // Nothing of the unfinished run is visible as a table part.
    for (const name of Object.keys(tables)) {
      const dir = path.join(out, name, 'snapshot_date=2026-11-22');
      const parts = existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.parquet')) : [];
      expect(parts, name).toEqual([]);
    }

    const again = await runCli(args(out));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('resumed from a checkpoint');
    expect(existsSync(staging) ? await readdir(staging) : []).toEqual([]);

    const [want, got] = [await snapshotRows(reference, VOLATILE_COLUMNS), await snapshotRows(out, VOLATILE_COLUMNS)];
    for (const name of Object.keys(tables)) expect(got[name], name).toEqual(want[name]);
    expect(want.targets!.length).toBe(160);

    // The same command once more: the run is complete, nothing is crawled or written again.
    const third = await runCli(args(out));
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('already complete');
    expect((await snapshotRows(out, VOLATILE_COLUMNS)).fetches).toEqual(got.fetches);
  }, 120_000);
});
