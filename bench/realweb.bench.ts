/**
 * `adsnap crawl` of N sites of the calibrated real-web mix with its default
 * settings, then at other concurrencies and per-IP limits. The simulated web runs in its own
 * process with `--realweb` (bot walls, 429s, stalls, slow answers; realweb-calibration.ts) and,
 * where it can bind ports 80/443, `--dns` (name failures, CDN-style sharing of addresses, SYN-dead
 * hosts; calibration.ts): the crawl then reaches it through real DNS (`--dns-server`,
 * `--allow-addresses`), with no --connect-to. Without that it falls back to --connect-to and says so.
 *
 *   npm run bench -- realweb                         (100,000 sites at the defaults, then 10,000 at the others)
 *   ADSNAP_BENCH_DOMAINS=10000 ADSNAP_BENCH_VARIANTS='default;--concurrency 64;--concurrency 512' npm run bench -- realweb
 *
 * Figures per run: sites/s, CPU s per 1k sites (crawl process, worker threads included, from the
 * run manifest), peak RSS, and where the fetch time went: the share of all request time
 * (Σ fetches.duration_ms) spent on requests that ended in a time-out or connect failure, i.e. on
 * dead hosts, and the walls, 429s and holds the crawl met.
 *
 * The first run (the full list at the defaults) is also split into phases, for a night measured end
 * to end (issue 34, item 6): the crawl itself, the commit's compaction, the commit's derived tables,
 * then `adsnap report` over the night (ADSNAP_BENCH_REPORT=0 leaves the report out). Each phase's
 * wall time, CPU seconds per 1k sites and peak RSS; ADSNAP_BENCH_KEEP=1 keeps that night.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { repoRoot, treeRssOf } from './corpus.js';

const SIZE = Number(process.env.ADSNAP_BENCH_DOMAINS ?? 100_000);
/** The other runs (same web, smaller list unless ADSNAP_BENCH_OTHER_DOMAINS says otherwise). */
const VARIANTS = (process.env.ADSNAP_BENCH_VARIANTS ?? 'default;default;--concurrency 64;--concurrency 512;--connect-timeout 10000 --headers-timeout 15000').split(';').map((s) => s.trim());
const OTHER_SIZE = Number(process.env.ADSNAP_BENCH_OTHER_DOMAINS ?? Math.min(SIZE, 10_000));
const LATENCY = process.env.ADSNAP_BENCH_LATENCY ?? '20-300';
const USE_DNS = process.env.ADSNAP_BENCH_DNS !== '0';
const bin = path.join(repoRoot, 'bin', 'adsnap.js');
/** The share of fetches ending in a connection reset above which the run is flagged (a healthy run of the mix: 0.04%, 272 of 652,723 at 300k sites). */
const RESET_ALARM = 0.01;

interface Web {
  child: ChildProcess;
  /** What points a crawl at it: DNS flags (or --connect-to) and --cacert. */
  args: string[];
  viaDns: boolean;
  list: string;
}

/** Starts `adsnap simweb --realweb [--dns 0]`; its first stdout line is the --connect-to form, the second (with --dns) the DNS form. */
async function startWeb(hosts: number, list: string, dns: boolean): Promise<Web> {
  const latency = LATENCY === '0' ? [] : ['--latency', LATENCY];
  const child = spawn(process.execPath, [bin, 'simweb', '--hosts', String(hosts), '--realweb', '--no-hostile', ...latency, '--list', list, ...(dns ? ['--dns', '0'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const lines = await new Promise<string[]>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += d;
      const got = buf.split('\n');
      if (got.length > (dns ? 2 : 1)) resolve(got);
    });
    child.on('exit', (c) => reject(new Error(`simweb exited ${c}: ${err.slice(-500)}`)));
  });
  return { child, args: (dns ? lines[1]! : lines[0]!).split(' '), viaDns: dns, list };
}

/** Where the request time went, read back from the fetches table. */
async function fetchFigures(out: string) {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const glob = path.join(out, 'fetches', '*', '*.parquet');
  const r = await con.runAndReadAll(`
    SELECT sum(attempts)::BIGINT,
           sum(duration_ms)::DOUBLE,
           coalesce(sum(duration_ms) FILTER (WHERE error IN ('timeout', 'connect', 'unresponsive')), 0)::DOUBLE,
           count(*) FILTER (WHERE error IN ('timeout', 'connect', 'unresponsive'))::BIGINT,
           count(*) FILTER (WHERE error = 'unresponsive')::BIGINT,
           count(*) FILTER (WHERE error LIKE 'dns%')::BIGINT,
           count(*) FILTER (WHERE error = 'reset')::BIGINT,
           count(*)::BIGINT
    FROM read_parquet('${glob}')`);
  const [requests, totalMs, deadMs, dead, skipped, dns, resets, fetches] = r.getRows()[0]!.map(Number) as [number, number, number, number, number, number, number, number];
  const files = await con.runAndReadAll(`SELECT status, count(*)::BIGINT FROM read_parquet('${path.join(out, 'files', '*', '*.parquet')}') WHERE file_kind = 'ads.txt' GROUP BY ALL`);
  con.closeSync();
  const status = Object.fromEntries(files.getRows().map(([s, n]) => [String(s), Number(n)]));
  return { requests, totalMs, deadMs, deadShare: totalMs > 0 ? deadMs / totalMs : 0, dead, skipped, dns, status, resetShare: fetches > 0 ? resets / fetches : 0 };
}

/** The last line `/usr/bin/time -f '%U %S %M'` wrote: CPU seconds and peak RSS (MB) of the whole process. */
function timeLine(stderr: string): { cpuS: number; rssMb: number } {
  const [u, s, m] = stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { cpuS: u! + s!, rssMb: Math.round(m! / 1024) };
}

async function crawlOnce(web: Web, list: string, out: string, extra: string[]) {
  const t0 = performance.now();
  // The defaults are the defaults: the sellers.json phase and checkpoints stay on.
  // Under /usr/bin/time: the process's CPU after the manifest (the derived tables) is the whole minus the manifest's.
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', process.execPath, bin, 'crawl', '--domains', list, '--out', out, '--progress', 'none', ...extra, ...web.args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssOf(child.pid!) ?? 0)), 1000);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  clearInterval(sampler);
  const wallS = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`crawl failed (${code}): ${stderr.slice(-2000)}`);
  const runs = (await readdir(path.join(out, '_runs'))).filter((f) => f.endsWith('.json'));
  const manifest = JSON.parse(readFileSync(path.join(out, '_runs', runs[0]!), 'utf8'));
  const nights = await readdir(path.join(out, '_derived', '_nights')).catch(() => [] as string[]);
  const marker = nights.length > 0 ? JSON.parse(readFileSync(path.join(out, '_derived', '_nights', nights[0]!), 'utf8')) : null;
  const whole = timeLine(stderr);
  const cpuS = manifest.resources.cpu_user_s + manifest.resources.cpu_system_s;
  return {
    wallS,
    cpuS,
    phases: { compactS: manifest.commit_compact_s as number, compactRssMb: manifest.commit_peak_rss_mb as number, deriveS: (marker?.seconds as number | undefined) ?? NaN, deriveCpuS: whole.cpuS - cpuS, wholeCpuS: whole.cpuS, wholeRssMb: whole.rssMb },
    rssMb: Math.max(manifest.resources.max_rss_mb as number, peak),
    knobs: manifest.fetch as { concurrency: number; per_ip: number; connect_timeout_ms: number; headers_timeout_ms: number },
    counts: manifest.counts as { walls: number; rate_limited: number; backoffs: { hosts: number; ips: number } },
    ...(await fetchFigures(out)),
  };
}

export async function run(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'adsnap-bench-realweb-'));
  const list = path.join(tmp, 'domains.txt');
  let web: Web;
  try {
    web = await startWeb(SIZE, list, USE_DNS);
  } catch (err) {
    if (!USE_DNS) throw err;
    console.log(`simweb --dns could not start (${(err as Error).message.split('\n')[0]}): crawling through --connect-to instead (no DNS failures, no shared addresses)`);
    web = await startWeb(SIZE, list, false);
  }
  const cores = os.cpus().length;
  console.log(`${SIZE} sites of the calibrated mix (simweb --realweb${web.viaDns ? ' --dns: through real DNS, no --connect-to' : ': through --connect-to'}), injected latency ${LATENCY} ms, ${cores} cores shared with other work, sellers.json phase and checkpoints on (the defaults); other runs on the first ${OTHER_SIZE} sites`);
  console.log('| run | sites | wall s | sites/s | CPU s / 1k sites | peak RSS | requests | waiting on dead hosts: share of request time / of slot time (wall × concurrency) | not tried (unresponsive) | ads.txt blocked / rate_limited / unreachable | holds host/ip |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const otherList = path.join(tmp, 'domains-other.txt');
  let byPhase: string[] = [];
  try {
    const all = readFileSync(list, 'utf8').split('\n').filter(Boolean);
    await import('node:fs/promises').then((fs) => fs.writeFile(otherList, all.slice(0, OTHER_SIZE).join('\n') + '\n'));
    for (const [i, v] of VARIANTS.entries()) {
      const extra = v === 'default' ? [] : v.split(/\s+/);
      const n = i === 0 ? SIZE : OTHER_SIZE;
      const out = path.join(tmp, `out-${i}`);
      const c = await crawlOnce(web, i === 0 ? list : otherList, out, extra);
      const label = `${v} (concurrency ${c.knobs.concurrency}, per-ip ${c.knobs.per_ip})`;
      const s = c.status;
      console.log(`| ${label} | ${n} | ${c.wallS.toFixed(1)} | ${(n / c.wallS).toFixed(0)} | ${((c.cpuS / n) * 1000).toFixed(2)} | ${c.rssMb} MB | ${c.requests} | ${(100 * c.deadShare).toFixed(0)} % / ${((100 * c.deadMs) / (c.wallS * 1000 * c.knobs.concurrency)).toFixed(0)} % (${c.dead} requests) | ${c.skipped} | ${s.blocked ?? 0} / ${s.rate_limited ?? 0} / ${s.unreachable ?? 0} | ${c.counts.backoffs.hosts} / ${c.counts.backoffs.ips} |`);
      // The mix resets no connection: resets in numbers mean the simulated web broke down (on
      // 2026-11-27 it ran out of descriptors and reset every connection of the last 17 minutes).
      if (c.resetShare > RESET_ALARM) console.log(`WARNING: ${(100 * c.resetShare).toFixed(1)}% of this run's fetches ended in a connection reset: the simulated web broke down, and the run measures that, not adsnap`);
      if (i === 0) byPhase = await phases(out, n, c);
      if (i === 0 && process.env.ADSNAP_BENCH_KEEP) console.log(`kept ${out} (and the simulated web's list ${list})`);
      else await rm(out, { recursive: true, force: true });
    }
    for (const line of byPhase) console.log(line);
  } finally {
    web.child.kill('SIGTERM');
    if (!process.env.ADSNAP_BENCH_KEEP) await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * The first run's night by phase: the crawl (until the commit), the compaction, the derived tables
 * (the commit's last step, after the manifest), and the report over the night, each in wall time,
 * CPU s per 1k sites and peak RSS: the lines of a table, printed after the runs' table. The
 * manifest's CPU covers the crawl and the compaction together (not separable).
 */
async function phases(out: string, n: number, c: Awaited<ReturnType<typeof crawlOnce>>): Promise<string[]> {
  const per1k = (s: number) => ((s / n) * 1000).toFixed(2);
  const p = c.phases;
  const rows = [
    `| crawl and compaction (to the manifest) | ${(c.wallS - p.deriveS).toFixed(1)} | ${per1k(c.cpuS)} | ${c.rssMb} MB |`,
    `| of which the compaction | ${p.compactS.toFixed(1)} | — | ${p.compactRssMb} MB |`,
    `| derived tables (after the manifest) | ${p.deriveS.toFixed(1)} (${((100 * p.deriveS) / c.wallS).toFixed(1)}% of the night's wall) | ${per1k(p.deriveCpuS)} | — |`,
  ];
  if (process.env.ADSNAP_BENCH_REPORT !== '0') {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', process.execPath, bin, 'report', out, '--out', path.join(out, '..', 'report-0')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    const r = timeLine(stderr);
    const wall = ((performance.now() - t0) / 1000).toFixed(1);
    // A failed report is a row of the table (with its error), not the end of the benchmark: the crawl's figures stand.
    if (code !== 0) rows.push(`| adsnap report over the night: **failed** (exit ${code}: ${stderr.trim().split('\n').find((l) => l.startsWith('adsnap report:')) ?? 'see stderr'}) | ${wall} | ${per1k(r.cpuS)} | ${r.rssMb} MB |`);
    else rows.push(`| adsnap report over the night | ${wall} | ${per1k(r.cpuS)} | ${r.rssMb} MB |`);
  }
  return [`\nthe first run by phase (${n} sites; whole crawl process: ${per1k(p.wholeCpuS)} CPU s / 1k sites, peak RSS ${p.wholeRssMb} MB)`, '| phase | wall s | CPU s / 1k sites | peak RSS |', '|---|---|---|---|', ...rows];
}
