/**
 * Crawl benchmark: a whole `adsnap crawl` of N synthetic domains on the simulated web with
 * injected latency, beside a bare undici `request()` loop fetching the list's robots.txt and
 * ads.txt URLs (HTTPS, redirects followed) at the same concurrency: the ceiling this machine and
 * this simulated web allow. The simulated web runs in its own process; the crawl's CPU time and
 * peak RSS come from its run manifest (process.resourceUsage, worker threads included).
 *
 * The crawl asks for more than the list's two files per site (the partners' and subdomains'
 * files, the HTTP fallback of ads.txt 1.1 §3.1, retries of 503s after their backoff), so after it
 * a second bare loop replays every URL the crawl asked for, per host: the same work without the
 * crawl's waits. The output gives both ratios, and how long the last 5% of the URLs took in each.
 *
 * The crawl's resident memory is also sampled every second from /proc (Linux), so the table shows
 * where the peak came (RSS at 25/50/75/100 % of the run), not only how high it went; the peak is
 * the higher of the manifest's and the samples' (the derived tables are written after the manifest).
 *
 *   npm run bench -- crawl                                     (100,000 domains; ADSNAP_BENCH_DOMAINS=10000,… for others)
 *   ADSNAP_BENCH_DOMAINS=10000,100000,1000000 ADSNAP_BENCH_BARE=0 ADSNAP_BENCH_LATENCY=0 ADSNAP_BENCH_HTTP=1 npm run bench -- crawl
 *   ADSNAP_BENCH_NODE_FLAGS='--heap-growing-percent=50' …     (V8 flags for the crawl process only)
 *   ADSNAP_BENCH_AI_SIGNALS=1 ADSNAP_BENCH_BARE=0 ADSNAP_BENCH_DOMAINS=2000 npm run bench -- crawl
 *                                                              (each size crawled twice: without and with --ai-signals)
 *
 * The second line is the memory-scaling mode: no bare loop, no injected latency, and HTTPS
 * refused (`--connect-to :443:` a closed port) so every file comes over HTTP after the fallback
 * (ads.txt 1.1 §3.1), the simulated web answering over http:// as over https:// (`--plain-http`);
 * the ad systems' sellers.json still come over HTTPS, so that mode runs the sellers.json phase too
 * and its nights are whole ones (ADSNAP_BENCH_KEEP=1 keeps them). It keeps every table, the
 * writer, the pools and the per-run sets as in a real crawl while skipping most TLS handshakes,
 * which bound the simulated web to ~100 sites/s: a million sites in about an hour and a quarter.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { DuckDBInstance } from '@duckdb/node-api';
import { Agent, request } from 'undici';
import { repoRoot, treeRssOf } from './corpus.js';
import { spawnSimweb } from './simweb-child.js';

const SIZES = (process.env.ADSNAP_BENCH_DOMAINS ?? '100000').split(',').map(Number);
const CONCURRENCY = Number(process.env.ADSNAP_BENCH_CONCURRENCY ?? 256);
const LATENCY = process.env.ADSNAP_BENCH_LATENCY ?? '20-300';
const WITH_BARE = process.env.ADSNAP_BENCH_BARE !== '0';
const HTTP_ONLY = process.env.ADSNAP_BENCH_HTTP === '1';
/** Node/V8 flags for the crawl process only, e.g. `--heap-growing-percent=50` (space-separated). */
const CRAWL_NODE_FLAGS = (process.env.ADSNAP_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** Seconds between the crawl's checkpoints (its --checkpoint-interval). @default the crawl's own default */
const CHECKPOINT_S = process.env.ADSNAP_BENCH_CHECKPOINT;
/** Crawl each size a second time with --ai-signals (the consent files' cost: docs/performance.md). */
const AI_SIGNALS = process.env.ADSNAP_BENCH_AI_SIGNALS === '1';
/** Keep each size's night (its path is printed), e.g. for `adsnap report` over it. */
const KEEP = process.env.ADSNAP_BENCH_KEEP === '1';
const bin = path.join(repoRoot, 'bin', 'adsnap.js');

interface Web {
  child: ChildProcess;
  port: number;
  args: string[];
  list: string;
  caPem: string;
}

async function startWeb(hosts: number, tmp: string): Promise<Web> {
  const list = path.join(tmp, `domains-${hosts}.txt`);
  const latency = LATENCY === '0' ? [] : ['--latency', LATENCY];
  // HTTP only: the web answers over http:// as over https:// (without --plain-http, 80% of its
  // sites redirect http:// to https://, and the crawl would mostly record refused connects).
  const adSystems = path.join(tmp, `ad-systems-${hosts}.txt`);
  const plain = HTTP_ONLY ? ['--plain-http', '--ad-system-list', adSystems] : [];
  const { child, first, args: webArgs } = await spawnSimweb(['--hosts', String(hosts), ...latency, '--list', list, '--no-hostile', ...plain]);
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(first)![1]);
  let args = webArgs;
  if (HTTP_ONLY) {
    // A port nothing listens on: every HTTPS connect is refused at once and the fetch falls back to
    // HTTP; but the ad systems' sellers.json, asked over HTTPS only, reach the web (the first rule
    // that matches a host applies).
    const probe = createServer();
    const closed = await new Promise<number>((r) => probe.listen(0, '127.0.0.1', () => r((probe.address() as AddressInfo).port)));
    await new Promise((r) => probe.close(r));
    const systems = readFileSync(adSystems, 'utf8').split('\n').filter(Boolean).flatMap((h) => ['--connect-to', `${h}:443:127.0.0.1:${port}`]);
    args = [...systems, ...args.map((a) => (a.startsWith(':443:') ? `:443:127.0.0.1:${closed}` : a))];
  }
  return { child, port, args, list, caPem: readFileSync(args[args.indexOf('--cacert') + 1]!, 'utf8') };
}

/**
 * Read back from the `fetches` table with DuckDB: the HTTP requests the crawl sent (every try of
 * every hop, `fetches.attempts`) and, in epoch ms, when its first request started and its last
 * one ended: the crawl's fixed costs are the time before the first and after the last.
 */
async function fetchFigures(out: string): Promise<{ requests: number; urls: number; firstMs: number; lastMs: number; lastShareS: number; urlsByHost: string[][] }> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const fetches = `read_parquet('${path.join(out, 'fetches', '*', '*.parquet')}')`;
  const r = await con.runAndReadAll(
    `SELECT sum(attempts)::BIGINT, count(*)::BIGINT, epoch_ms(min(started_at))::BIGINT, max(epoch_ms(started_at) + duration_ms)::BIGINT,
            quantile_disc(epoch_ms(started_at) + duration_ms, 0.95)::BIGINT FROM ${fetches}`,
  );
  const [requests, urls, firstMs, lastMs, p95EndMs] = r.getRows()[0]!.map(Number) as [number, number, number, number, number];
  // Every URL the crawl asked for (each row's first URL: its redirects and retries are the row's
  // attempts), per host, the hosts in the order the crawl first reached them.
  const byHost = await con.runAndReadAll(`SELECT list(url ORDER BY started_at) FROM ${fetches} GROUP BY host ORDER BY min(started_at)`);
  const urlsByHost = byHost.getRowsJS().map(([l]) => (l as unknown[]).map(String));
  con.closeSync();
  return { requests, urls, firstMs, lastMs, lastShareS: (lastMs - p95EndMs) / 1000, urlsByHost };
}

async function crawlOnce(web: Web, out: string, extra: readonly string[] = []) {
  const t0 = performance.now();
  const epoch0 = Date.now();
  const child = spawn(process.execPath, [...CRAWL_NODE_FLAGS, bin, 'crawl', '--domains', web.list, '--out', out, '--concurrency', String(CONCURRENCY), '--progress', 'none', ...(HTTP_ONLY ? [] : ['--no-sellers']), ...(CHECKPOINT_S ? ['--checkpoint-interval', CHECKPOINT_S] : []), ...extra, ...web.args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const samples: number[] = [];
  const sampler = setInterval(() => {
    const mb = treeRssOf(child.pid!);
    if (mb !== null) samples.push(mb);
  }, 1000);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  clearInterval(sampler);
  const wallS = (performance.now() - t0) / 1000;
  const epoch1 = Date.now();
  if (code !== 0) throw new Error(`crawl failed (${code}): ${stderr.slice(-2000)}`);
  const runs = (await readdir(path.join(out, '_runs'))).filter((f) => f.endsWith('.json'));
  const manifest = JSON.parse(readFileSync(path.join(out, '_runs', runs[0]!), 'utf8'));
  const at = (q: number) => (samples.length ? samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]! : null);
  const f = await fetchFigures(out);
  return {
    wallS,
    cpuS: manifest.resources.cpu_user_s + manifest.resources.cpu_system_s,
    // The manifest's peak is taken when it is written; the night's derived tables come after it
    // (pipelines/run-commit.ts), so the sampled peak is the night's when it is higher.
    rssMb: samples.reduce((a, b) => Math.max(a, b), manifest.resources.max_rss_mb as number),
    rssTrend: [0.25, 0.5, 0.75].map(at),
    requests: f.requests,
    urls: f.urls,
    lastShareS: f.lastShareS,
    urlsByHost: f.urlsByHost,
    /** Seconds from the spawn to the first request (process start, list, setup) and from the last request's end to the exit (the commit). */
    startS: Math.max(0, (f.firstMs - epoch0) / 1000),
    tailS: Math.max(0, (epoch1 - f.lastMs) / 1000),
    checkpoints: manifest.counts.checkpoints as { count: number; max_pause_ms: number; max_duration_ms: number } | undefined,
  };
}

/**
 * The same requests, done as plainly as undici allows: per host its URLs one after the other,
 * redirects followed, no retry, `CONCURRENCY` hosts at a time. `hosts` is either the list's
 * robots.txt and ads.txt (the loop the targets were set against) or every URL the crawl asked
 * for, per host (its referrals and HTTP fallbacks too: the same work, without the waits).
 */
async function bareLoop(web: Web, hosts: readonly (readonly string[])[]) {
  const agent = new Agent({ connect: { ca: web.caPem, lookup: (_h: string, _o: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) => cb(null, [{ address: '127.0.0.1', family: 4 }]) } as never, keepAliveTimeout: 2000 });
  let next = 0;
  let requests = 0;
  const ends: number[] = [];
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const onPort = (href: string) => {
    const u = new URL(href);
    u.port = String(web.port);
    return u.href;
  };
  const get = async (first: string) => {
    let url = onPort(first);
    for (let hop = 0; hop < 6; hop++) {
      requests++;
      const res = await request(url, { dispatcher: agent, headersTimeout: 15_000, bodyTimeout: 15_000 });
      for await (const _ of res.body) {
        /* read the body */
      }
      const loc = res.headers.location;
      if (res.statusCode < 300 || res.statusCode >= 400 || typeof loc !== 'string') return;
      url = onPort(new URL(loc, url).href);
    }
  };
  const lane = async () => {
    while (next < hosts.length) {
      for (const u of hosts[next++]!) {
        await get(u).catch(() => undefined);
        ends.push(performance.now());
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const wallS = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(cpu0);
  await agent.close();
  ends.sort((a, b) => a - b);
  return { wallS, cpuS: (c.user + c.system) / 1e6, requests, urls: ends.length, lastShareS: lastShare(ends) };
}

/** Seconds from the end of 95% of the URLs to the end of the last one: the run's long tail. */
function lastShare(sortedEnds: readonly number[]): number {
  return sortedEnds.length ? (sortedEnds[sortedEnds.length - 1]! - sortedEnds[Math.floor(0.95 * (sortedEnds.length - 1))]!) / 1000 : 0;
}

function bareRow(name: string, n: number, b: Awaited<ReturnType<typeof bareLoop>>): string {
  return `| ${name} | ${n} | ${b.wallS.toFixed(1)} | ${(n / b.wallS).toFixed(0)} | ${b.requests} | ${((b.cpuS / n) * 1000).toFixed(2)} | — | — |`;
}

export async function run(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'adsnap-bench-crawl-'));
  console.log(
    `concurrency ${CONCURRENCY}, injected latency ${LATENCY} ms per answer, simulated web in its own process` +
      (HTTP_ONLY ? ', HTTPS refused (every file over HTTP after the fallback) but for the ad systems, sellers.json phase on' : ', sellers.json phase off') +
      (CRAWL_NODE_FLAGS.length ? `, crawl run with node ${CRAWL_NODE_FLAGS.join(' ')}` : ''),
  );
  console.log('| run | domains | wall s | domains/s | HTTP requests | CPU s / 1k domains | peak RSS | RSS at 25/50/75 % of the run |');
  console.log('|---|---|---|---|---|---|---|---|');
  try {
    for (const n of SIZES) {
      const web = await startWeb(n, tmp);
      try {
        const domains = readFileSync(web.list, 'utf8').trim().split('\n');
        let bare: Awaited<ReturnType<typeof bareLoop>> | null = null;
        if (WITH_BARE) {
          bare = await bareLoop(web, domains.map((d) => [`https://${d}/robots.txt`, `https://${d}/ads.txt`]));
          console.log(bareRow('bare undici loop, the list', n, bare));
        }
        const c = await crawlOnce(web, path.join(tmp, `out-${n}`));
        const trend = c.rssTrend.map((x) => (x === null ? '?' : `${x}`)).join(' / ');
        console.log(`| adsnap crawl | ${n} | ${c.wallS.toFixed(1)} | ${(n / c.wallS).toFixed(0)} | ${c.requests} | ${((c.cpuS / n) * 1000).toFixed(2)} | ${c.rssMb} MB | ${trend} MB |`);
        // The crawl's own URLs, replayed plainly: the same work, without its waits (backoff, the phases, robots.txt first).
        const same = bare ? await bareLoop(web, c.urlsByHost) : null;
        if (same) console.log(bareRow("bare undici loop, the crawl's URLs", n, same));
        if (c.checkpoints) console.log(`\ncheckpoints at ${n}: ${c.checkpoints.count}; longest event-loop pause ${c.checkpoints.max_pause_ms} ms, longest until saved ${c.checkpoints.max_duration_ms} ms (work goes on meanwhile)\n`);
        console.log(`\nfixed costs at ${n}: ${c.startS.toFixed(1)} s before the first request, ${c.tailS.toFixed(1)} s after the last one (the commit): ${((100 * (c.startS + c.tailS)) / c.wallS).toFixed(0)}% of the wall time (target ≤ 10%)`);
        console.log(`the last 5% of the crawl's ${c.urls} URLs: ${c.lastShareS.toFixed(1)} s (retries after backoff, the partners after the listed sites)${bare ? `; of the bare loop's ${bare.urls}: ${bare.lastShareS.toFixed(1)} s` : ''}`);
        if (bare) {
          const cpuRatio = c.cpuS / n / (bare.cpuS / n);
          console.log(`crawl at ${n}: ${((100 * bare.wallS) / c.wallS).toFixed(0)}% of the bare loop's throughput (target ≥ 88%), ${cpuRatio.toFixed(2)}× its CPU per 1k domains (${((c.cpuS / n) * 1000).toFixed(2)} vs ${((bare.cpuS / n) * 1000).toFixed(2)} CPU s; target ≤ 1.2×)`);
        }
        if (same) {
          console.log(`against the crawl's own ${c.urls} URLs replayed: ${((100 * same.wallS) / c.wallS).toFixed(0)}% of the bare loop's throughput, ${(c.cpuS / same.cpuS).toFixed(2)}× its CPU (${((c.cpuS / n) * 1000).toFixed(2)} vs ${((same.cpuS / n) * 1000).toFixed(2)} CPU s / 1k domains)`);
        }
        console.log('');
        if (AI_SIGNALS) {
          await rm(path.join(tmp, `out-${n}`), { recursive: true, force: true });
          const a = await crawlOnce(web, path.join(tmp, `out-${n}`), ['--ai-signals']);
          console.log(`| adsnap crawl --ai-signals | ${n} | ${a.wallS.toFixed(1)} | ${(n / a.wallS).toFixed(0)} | ${a.requests} | ${((a.cpuS / n) * 1000).toFixed(2)} | ${a.rssMb} MB | — |`);
          console.log(`\n--ai-signals at ${n}: +${(((a.requests - c.requests) / n) * 1000).toFixed(0)} requests and +${(((a.wallS - c.wallS) / n) * 1000).toFixed(2)} s wall per 1k sites\n`);
        }
      } finally {
        web.child.kill('SIGTERM');
        if (KEEP) console.log(`kept ${path.join(tmp, `out-${n}`)}`);
        else await rm(path.join(tmp, `out-${n}`), { recursive: true, force: true });
      }
    }
  } finally {
    if (!KEEP) await rm(tmp, { recursive: true, force: true });
  }
}
