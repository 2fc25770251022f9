/**
 * `adsnap report` at scale:
 * - a series of NIGHTS nights of N sites: one night crawled from the simulated web, then copied
 *   to the following dates with edits (each night 2% of the ads.txt files lose a tenth of their
 *   records and 10% of the sellers.json files a twentieth of their sellers, with a new sha256, so
 *   the changes section has work to do) — cheap to make, the size of a real series;
 * - one night of 10 × N sites (the crawled night repeated with renamed subjects).
 * The report runs as the CLI does, in a child process; wall time and peak RSS are its own
 * (`adsnap report` prints them). Targets (docs/performance.md#the-report-over-a-month-of-nights): 30 nights × 100k in ≤ 60 s, peak RSS ≤ 1 GB.
 *
 *   npm run bench -- report        (ADSNAP_BENCH_DOMAINS=100000, ADSNAP_BENCH_NIGHTS=30;
 *                                   ADSNAP_BENCH_NIGHT_DIR=ROOT starts from a crawled night,
 *                                   ADSNAP_BENCH_KEEP=1 keeps the series,
 *                                   ADSNAP_BENCH_NO_SUMMARY=1 writes no night summary: the
 *                                   report reads the views for every night, as for old roots)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TableName } from '../schemas/tables.js';
import { deriveRoot } from '../src/report/derived.js';
import { SORT_KEYS } from '../src/sink/compact.js';
import { repoRoot } from './corpus.js';
import { night } from './incremental.bench.js';

const N = Number(process.env.ADSNAP_BENCH_DOMAINS ?? 100_000);
const NIGHTS = Number(process.env.ADSNAP_BENCH_NIGHTS ?? 30);
const WIDE = Number(process.env.ADSNAP_BENCH_WIDEN ?? 10);
const bin = path.join(repoRoot, 'bin', 'adsnap.js');
const BASE = '2026-11-01';

/**
 * The tables a widened night keeps once: the ad systems' own files, and the night's catalogue of
 * agents (copied, each agent would count ten times in the consent figures' joins).
 */
const ONCE = ['sellers', 'sellers_files', 'buyers', 'buyers_files', 'agents_catalogue'];

/** Columns naming a site or host: renamed per copy when a night is widened. */
const NAME_COLUMNS = ['subject', 'target', 'host', 'from_subject', 'to_subject', 'store_url'];

function addDays(date: string, days: number): string {
  return new Date(Date.parse(date + 'T00:00:00Z') + days * 86_400_000).toISOString().slice(0, 10);
}

interface Manifest {
  run_id: string;
  snapshot_date: string;
  tables: Record<string, { rows: number; parts: string[] }>;
  [k: string]: unknown;
}

/**
 * Writes the nights `dates` into `root` from the crawled night `src` (its one manifest): per
 * table and date one part, made by DuckDB from the source parts, `tail(table, k)` deciding which
 * rows the k-th copy keeps and `select(table, columns)` what it writes.
 */
export async function copyNights(src: string, root: string, dates: string[], select: (table: string, columns: string[], k: number) => string, tail: (table: string, k: number) => string): Promise<void> {
  const manifestFile = readdirSync(path.join(src, '_runs')).find((f) => f.endsWith('.json'))!;
  const m = JSON.parse(readFileSync(path.join(src, '_runs', manifestFile), 'utf8')) as Manifest;
  const db = await DuckDBInstance.create(':memory:', { memory_limit: '2GB' });
  const con = await db.connect();
  try {
    await mkdir(path.join(root, '_runs'), { recursive: true });
    for (const [k, date] of dates.entries()) {
      const tables: Manifest['tables'] = {};
      for (const [table, t] of Object.entries(m.tables)) {
        if (t.parts.length === 0) {
          tables[table] = { rows: 0, parts: [] };
          continue;
        }
        const files = t.parts.map((p) => `'${path.join(src, p)}'`).join(', ');
        const columns = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet([${files}], hive_partitioning = false)`)).getRows().map((r) => String(r[0]));
        const part = `${table}/snapshot_date=${date}/part-00001.parquet`;
        await mkdir(path.join(root, path.dirname(part)), { recursive: true });
        // In the commit's order (SORT_KEYS, src/sink/compact.ts): a widened night's copies of a row are
        // next to each other otherwise, and every row group spans the whole range of subjects.
        const keys = (SORT_KEYS[table as TableName] ?? []).filter((c) => columns.includes(c));
        const order = keys.length > 0 ? `ORDER BY ${keys.map((c) => `"${c}"`).join(', ')}` : '';
        const sql = `COPY (SELECT * FROM (SELECT ${select(table, columns, k)} FROM read_parquet([${files}], hive_partitioning = false) ${tail(table, k)}) ${order}) TO '${path.join(root, part)}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`;
        const n = Number((await con.runAndReadAll(sql)).getRows()[0]?.[0] ?? 0);
        tables[table] = { rows: n, parts: [part] };
      }
      // The crawled night's derived tables are not this night's: computed again below, as the commit does.
      const run = { ...m, run_id: `${date}-bench`, snapshot_date: date, tables };
      await writeFile(path.join(root, '_runs', `${run.run_id}.json`), JSON.stringify(run, null, 2));
    }
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

/**
 * Each night's derived tables (src/report/derived.ts), as the commit of a crawl writes them; the
 * time is what the commits pay (each night is derived from its own partitions).
 */
async function summarize(root: string): Promise<{ wallS: number; maxS: number }> {
  const t0 = performance.now();
  let maxS = 0;
  for (const d of await deriveRoot(root)) maxS = Math.max(maxS, d.seconds);
  return { wallS: (performance.now() - t0) / 1000, maxS };
}

/**
 * One night of `factor` × `base` sites in `dest` (dated `date`), from the crawled night `src`: every table's rows
 * repeated with renamed subjects (and ranks moved past the copies before), except the tables kept
 * ONCE: `factor` times the sites name the same ad systems.
 */
export async function writeWideNight(src: string, dest: string, factor: number, base: number, date = BASE): Promise<void> {
  const widen = (_table: string, columns: string[]) => {
    const names = columns.filter((c) => NAME_COLUMNS.includes(c));
    const replace = names.map((c) => `CASE WHEN w.i = 0 THEN ${c} ELSE ${c} || '.w' || w.i END AS ${c}`);
    if (columns.includes('rank')) replace.push(`rank + w.i * ${base} AS rank`);
    return replace.length === 0 ? '* EXCLUDE (i)' : `* EXCLUDE (i) REPLACE (${replace.join(', ')})`;
  };
  await copyNights(src, dest, [date], widen, (table) => (ONCE.includes(table) ? ', (SELECT 0 AS i) w' : `, range(${factor}) w(i)`));
}

async function report(root: string, out: string): Promise<{ wallS: number; rssMb: number; line: string }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, 'report', root, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`report failed: ${stderr.slice(-2000)}`);
  const wallS = (performance.now() - t0) / 1000;
  const rss = /peak RSS (\d+) MB/.exec(stdout);
  return { wallS, rssMb: rss ? Number(rss[1]) : NaN, line: stdout.split('\n')[0]! };
}

export async function run(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'adsnap-bench-report-'));
  try {
    console.log(`${NIGHTS} nights of ${N} sites (one crawled from the simulated web, copied with edits: each night 2% of ads.txt files and 10% of sellers.json files changed), and one night of ${WIDE} × ${N} sites`);
    // ADSNAP_BENCH_NIGHT_DIR: a snapshot root holding one crawled night to start from (skips the crawl).
    let crawled = process.env.ADSNAP_BENCH_NIGHT_DIR ?? '';
    if (!crawled) {
      crawled = path.join(tmp, 'night');
      const t = Date.parse(BASE + 'T02:00:00Z');
      const n = await night(crawled, path.join(tmp, 'domains.txt'), BASE, 0, ['--now', new Date(t).toISOString()]);
      console.log(`crawled night: ${n.wallS.toFixed(1)} s, ${n.requests} requests`);
    }

    const series = path.join(tmp, 'series');
    const dates = Array.from({ length: NIGHTS }, (_, k) => addDays(BASE, k));
    let t1 = performance.now();
    // Night k edits 2% of the ads.txt / app-ads.txt files (10% of their records dropped) and 10% of
    // the sellers.json files (5% of their sellers dropped), each a different choice per night, and
    // gives the edited files a new sha256, as a changed body has.
    const editedFile = (k: number) => `(file_kind IN ('ads.txt', 'app-ads.txt') AND hash(subject, file_kind, ${k}) % 50 = 0 OR file_kind = 'sellers.json' AND hash(subject, ${k}) % 10 = 0)`;
    const select = (table: string, _columns: string[], k: number) => (table === 'files' ? `* REPLACE (CASE WHEN ${editedFile(k)} THEN md5(coalesce(sha256, '') || ${k}) ELSE sha256 END AS sha256)` : '*');
    const tail = (table: string, k: number) =>
      table === 'ads_records'
        ? `WHERE NOT (hash(subject, file_kind, ${k}) % 50 = 0 AND hash(subject, ad_system_domain, seller_account_id, ${k}) % 10 = 0)`
        : table === 'sellers'
          ? `WHERE NOT (hash(ad_system_domain, ${k}) % 10 = 0 AND hash(ad_system_domain, seller_id, ${k}) % 20 = 0)`
          : '';
    await copyNights(crawled, series, dates, select, tail);
    console.log(`series written in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    if (!process.env.ADSNAP_BENCH_NO_SUMMARY) {
      const s = await summarize(series);
      console.log(`derived tables (what each night's commit computes): ${s.wallS.toFixed(1)} s for ${NIGHTS} nights, at most ${s.maxS.toFixed(1)} s a night`);
    }
    const a = await report(series, path.join(tmp, 'report-series'));
    // Each row as soon as it is known: a failure of the next report keeps this one's figures.
    console.log('| report | wall s | peak RSS | |');
    console.log('|---|---|---|---|');
    console.log(`| ${NIGHTS} nights × ${N} sites | ${a.wallS.toFixed(1)} | ${a.rssMb} MB | ${a.line} |`);

    const wide = path.join(tmp, 'wide');
    t1 = performance.now();
    await writeWideNight(crawled, wide, WIDE, N);
    console.log(`wide night written in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    if (!process.env.ADSNAP_BENCH_NO_SUMMARY) console.log(`derived tables of the wide night: ${(await summarize(wide)).wallS.toFixed(1)} s`);
    const b = await report(wide, path.join(tmp, 'report-wide'));

    console.log(`| 1 night × ${WIDE * N} sites | ${b.wallS.toFixed(1)} | ${b.rssMb} MB | ${b.line} |`);
  } finally {
    if (process.env.ADSNAP_BENCH_KEEP) console.log(`kept ${tmp}`);
    else await rm(tmp, { recursive: true, force: true });
  }
}
