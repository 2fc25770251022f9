import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { repoRoot } from './helpers/corpus.js';
import { listFiles } from './helpers/files.js';
import { finished, runCli, spawnCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('signals');

let web: Simweb;
let tmp: string;

beforeAll(async () => {
  web = await startSimweb({ hosts: 400, latency: { minMs: 100, maxMs: 300 }, hostile: false, fixturesDir: path.join(repoRoot, 'data-samples', 'simweb-fixtures') });
  tmp = tempDir();
});

afterAll(async () => {
  await web?.close();
});

describe('adsnap crawl and signals', () => {
  it('contract §1: a crawl stopped by SIGTERM exits non-zero and leaves no part or manifest visible', async () => {
    const list = path.join(tmp, 'list.txt');
    writeFileSync(list, [...web.domains()].join('\n') + '\n');
    const out = path.join(tmp, 'killed');
    const child = spawnCli(['crawl', '--domains', list, '--out', out, '--progress', 'json', '--log-interval', '1', '--concurrency', '8', ...web.connectArgs]);
    child.stdin!.end();
    const done = finished(child);
    // Wait until the crawl is visibly under way (its first progress line), then stop it.
    await new Promise<void>((resolve) => {
      const onData = (d: Buffer) => {
        if (d.toString().includes('"progress"')) {
          child.stderr!.off('data', onData);
          resolve();
        }
      };
      child.stderr!.on('data', onData);
    });
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('SIGTERM');
    const files = listFiles(out);
    expect(files.filter((f) => f.endsWith('.parquet'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('_runs/'))).toEqual([]);
  }, 60_000);

  it('spec-decisions: --obey-robots all skips an ads.txt that robots.txt disallows', async () => {
    const list = path.join(tmp, 'robots.txt-list');
    writeFileSync(list, 'robots-disallow.test\nnot-found.test\n');
    const out = path.join(tmp, 'strict');
    const r = await runCli(['crawl', '--domains', list, '--out', out, '--obey-robots', 'all', '--no-sellers', '--progress', 'none', '--snapshot-date', '2026-11-22', ...web.connectArgs]);
    expect(r.code).toBe(0);
    const db = await openSnapshotDb(out);
    try {
      expect(await db.rows(`SELECT subject, status, robots_allowed FROM files WHERE file_kind = 'ads.txt' ORDER BY subject`)).toEqual([
        { subject: 'not-found.test', status: 'not_found', robots_allowed: true },
        { subject: 'robots-disallow.test', status: 'disallowed_by_robots', robots_allowed: false },
      ]);
      expect(await db.rows(`SELECT url FROM fetches WHERE host = 'robots-disallow.test'`)).toEqual([{ url: 'https://robots-disallow.test/robots.txt' }]);
    } finally {
      db.close();
    }
  });

  it('usage errors exit 2 with a message', async () => {
    const r = await runCli(['crawl', '--out', path.join(tmp, 'x')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--domains/);
    const bad = await runCli(['crawl', '--domains', 'x', '--out', 'y', '--snapshot-date', '2026-13-01']);
    expect(bad.code).toBe(2);
    const ct = await runCli(['crawl', '--domains', 'x', '--out', 'y', '--connect-to', 'nonsense']);
    expect(ct.code).toBe(2);
  });

  it('a list that cannot be read fails the run (exit 1) without a snapshot', async () => {
    const out = path.join(tmp, 'nolist');
    const r = await runCli(['crawl', '--domains', path.join(tmp, 'missing.txt'), '--out', out, '--progress', 'none', ...web.connectArgs]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/missing\.txt|LIST_UNREADABLE|ENOENT/);
    expect(listFiles(out).filter((f) => f.endsWith('.parquet'))).toEqual([]);
  });
});
