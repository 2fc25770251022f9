/**
 * The next night against the first: a crawl of N domains of the simulated web, then the same list
 * 25 hours later on the same web where 5% of the ads.txt files changed (simweb --epoch 1), started
 * from a copy of the first night's output:
 * - with the defaults: every file asked again (conditional requests where the first night kept
 *   validators), so the second snapshot says what each site served that night;
 * - with `--reuse-fresh`: copies still fresh (ads.txt 7 days, robots.txt 24 h) reused without a
 *   request: cheaper, and blind to the files that changed within their lifetime.
 * Wall time includes the commit (compaction and publishing), whose own time and peak RSS come from
 * the run manifest. Then the reader's layout: for sample subjects and ad systems, the share of
 * row groups whose min/max statistics could hold them (what DuckDB reads for a lookup).
 *
 *   npm run bench -- incremental                  (ADSNAP_BENCH_DOMAINS=100000 by default)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { repoRoot } from './corpus.js';
import { spawnSimweb } from './simweb-child.js';

const N = Number(process.env.ADSNAP_BENCH_DOMAINS ?? 100_000);
const CONCURRENCY = Number(process.env.ADSNAP_BENCH_CONCURRENCY ?? 256);
const LATENCY = process.env.ADSNAP_BENCH_LATENCY ?? '20-300';
const bin = path.join(repoRoot, 'bin', 'adsnap.js');
const HOUR = 3_600_000;

export async function startWeb(epoch: number, list: string): Promise<{ child: ChildProcess; args: string[] }> {
  return spawnSimweb(['--hosts', String(N), '--latency', LATENCY, '--list', list, '--no-hostile', '--epoch', String(epoch)]);
}

interface Night {
  wallS: number;
  requests: number;
  cpuS: number;
  rssMb: number;
  compactS: number;
  commitRssMb: number;
  obtained: Record<string, number>;
}

export async function night(out: string, list: string, date: string, epoch: number, extra: string[]): Promise<Night> {
  const web = await startWeb(epoch, list);
  try {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, 'crawl', '--domains', list, '--out', out, '--snapshot-date', date, '--concurrency', String(CONCURRENCY), '--progress', 'none', ...extra, ...web.args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    if (code !== 0) throw new Error(`crawl failed: ${stderr.slice(-1000)}`);
    const wallS = (performance.now() - t0) / 1000;
    const runs = (await readdir(path.join(out, '_runs'))).map((f) => JSON.parse(readFileSync(path.join(out, '_runs', f), 'utf8')));
    const m = runs.find((r) => r.snapshot_date === date);
    return {
      wallS,
      requests: m.counts.requests,
      cpuS: m.resources.cpu_user_s + m.resources.cpu_system_s,
      rssMb: m.resources.max_rss_mb,
      compactS: m.commit_compact_s,
      commitRssMb: m.commit_peak_rss_mb,
      obtained: await obtainedCounts(out, date),
    };
  } finally {
    web.child.kill('SIGTERM');
  }
}

async function query(root: string, sql: string): Promise<unknown[][]> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    return (await con.runAndReadAll(sql.replaceAll('$ROOT', root.replace(/'/g, "''")))).getRows();
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

async function obtainedCounts(root: string, date: string): Promise<Record<string, number>> {
  const rows = await query(root, `SELECT file_kind || ':' || coalesce(obtained, '-'), count(*) FROM read_parquet('$ROOT/files/snapshot_date=${date}/*.parquet') WHERE file_kind IN ('ads.txt', 'robots.txt') GROUP BY 1`);
  return Object.fromEntries(rows.map(([k, n]) => [String(k), Number(n)]));
}

/**
 * Per table: how many row groups a point lookup on `column` must read, as the share of the
 * table's row groups whose [min, max] holds the value, averaged over `samples` values.
 */
async function pruning(root: string, date: string, table: string, column: string, samples: number): Promise<{ groups: number; readShare: number }> {
  const files = `'$ROOT/${table}/snapshot_date=${date}/*.parquet'`;
  const [row] = await query(
    root,
    `WITH rg AS (SELECT stats_min_value AS lo, stats_max_value AS hi FROM parquet_metadata(${files}) WHERE path_in_schema = '${column}'),
          v AS (SELECT DISTINCT ${column} AS x FROM read_parquet(${files}) USING SAMPLE ${samples} ROWS)
     SELECT (SELECT count(*) FROM rg), avg(hits) FROM (SELECT (SELECT count(*) FROM rg WHERE v.x BETWEEN rg.lo AND rg.hi) AS hits FROM v)`,
  );
  const groups = Number(row![0]);
  return { groups, readShare: groups === 0 ? 0 : Number(row![1]) / groups };
}

export async function run(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'adsnap-bench-incr-'));
  const list = path.join(tmp, 'domains.txt');
  const fmt = (o: Record<string, number>) => Object.entries(o).sort().map(([k, n]) => `${k} ${n}`).join(', ');
  try {
    console.log(`${N} domains, concurrency ${CONCURRENCY}, latency ${LATENCY} ms; the next night (+25 h) on the same web with 5% of ads.txt files changed`);
    const base = path.join(tmp, 'night1');
    const t1 = Date.now();
    const first = await night(base, list, '2026-11-21', 0, ['--now', new Date(t1).toISOString()]);
    const rows = [`| first night | ${first.wallS.toFixed(1)} | ${first.requests} | 100% | 100% | ${first.cpuS.toFixed(1)} | ${first.rssMb} MB | ${first.compactS} s | ${first.commitRssMb} MB | ${fmt(first.obtained)} |`];
    for (const [label, extra] of [
      ['next night, default (every file asked)', []],
      ['next night, --reuse-fresh', ['--reuse-fresh']],
    ] as const) {
      const out = path.join(tmp, `out-${extra.length}`);
      await cp(base, out, { recursive: true });
      const n = await night(out, list, '2026-11-22', 1, ['--now', new Date(t1 + 25 * HOUR).toISOString(), ...extra]);
      rows.push(
        `| ${label} | ${n.wallS.toFixed(1)} | ${n.requests} | ${((100 * n.wallS) / first.wallS).toFixed(0)}% | ${((100 * n.requests) / first.requests).toFixed(0)}% | ${n.cpuS.toFixed(1)} | ${n.rssMb} MB | ${n.compactS} s | ${n.commitRssMb} MB | ${fmt(n.obtained)} |`,
      );
      await rm(out, { recursive: true, force: true });
    }
    console.log('| run | wall s | requests | wall / first | requests / first | CPU s | peak RSS | compaction | commit peak RSS | files.obtained (ads.txt, robots.txt) |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);

    console.log('\nreader layout of the first night: row groups a point lookup reads (zone maps), averaged over 200 sampled values');
    console.log('| table | lookup column | row groups | share read per lookup |');
    console.log('|---|---|---|---|');
    for (const [table, column] of [['ads_records', 'subject'], ['files', 'subject'], ['fetches', 'subject'], ['robots_verdicts', 'host'], ['sellers', 'ad_system_domain'], ['ads_records', 'ad_system_domain']] as const) {
      const p = await pruning(base, '2026-11-21', table, column, 200);
      console.log(`| ${table} | ${column} | ${p.groups} | ${(100 * p.readShare).toFixed(1)}% |`);
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
