/**
 * Issue 7 benchmark: a second, incremental crawl over the same simulated web where 5% of the
 * ads.txt files changed (simweb --epoch 1), against the first crawl: wall time and requests as a
 * fraction. The first crawl runs once; each second run starts from a copy of its output. Three
 * spacings of the second run:
 * - 12 hours later (a second run the same day, or a re-run): every copy is still fresh;
 * - the next night (+25 h): robots.txt (24 h, RFC 9309 §2.4) is stale and revalidated, ads.txt
 *   (7 days by default, ads.txt 1.1 §3.6) and 404s are still fresh;
 * - eight days later: everything is stale and revalidated.
 *
 *   npm run bench -- incremental                  (ADSNAP_BENCH_DOMAINS=100000 by default)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './corpus.js';

const N = Number(process.env.ADSNAP_BENCH_DOMAINS ?? 100_000);
const CONCURRENCY = Number(process.env.ADSNAP_BENCH_CONCURRENCY ?? 256);
const LATENCY = process.env.ADSNAP_BENCH_LATENCY ?? '20-300';
const bin = path.join(repoRoot, 'bin', 'adsnap.js');
const DAY = 86_400_000;

async function startWeb(epoch: number, list: string): Promise<{ child: ChildProcess; args: string[] }> {
  const child = spawn(process.execPath, [bin, 'simweb', '--hosts', String(N), '--latency', LATENCY, '--list', list, '--no-hostile', '--epoch', String(epoch)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const first = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) resolve(buf.slice(0, buf.indexOf('\n')));
    });
    child.on('exit', (c) => reject(new Error(`simweb exited ${c}`)));
  });
  return { child, args: first.split(' ') };
}

async function night(out: string, list: string, date: string, epoch: number, extra: string[]) {
  const web = await startWeb(epoch, list);
  try {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, 'crawl', '--domains', list, '--out', out, '--snapshot-date', date, '--concurrency', String(CONCURRENCY), '--progress', 'none', '--no-sellers', ...extra, ...web.args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    if (code !== 0) throw new Error(`crawl failed: ${stderr.slice(-1000)}`);
    const wallS = (performance.now() - t0) / 1000;
    const runs = (await readdir(path.join(out, '_runs'))).map((f) => JSON.parse(readFileSync(path.join(out, '_runs', f), 'utf8')));
    const m = runs.find((r) => r.snapshot_date === date);
    return { wallS, requests: m.counts.requests as number, status: m.counts.file_status as Record<string, number>, cpuS: (m.resources.cpu_user_s + m.resources.cpu_system_s) as number, rssMb: m.resources.max_rss_mb as number };
  } finally {
    web.child.kill('SIGTERM');
  }
}

export async function run(): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'adsnap-bench-incr-'));
  const list = path.join(tmp, 'domains.txt');
  try {
    console.log(`${N} domains, concurrency ${CONCURRENCY}, latency ${LATENCY} ms; night 2 on the same web with 5% of ads.txt files changed`);
    const rows: string[] = [];
    const base = path.join(tmp, 'night1');
    const t1 = Date.now();
    const first = await night(base, list, '2026-11-21', 0, []);
    console.log(`first run: ${first.wallS.toFixed(1)} s, ${first.requests} requests, CPU ${first.cpuS.toFixed(1)} s, peak RSS ${first.rssMb} MB`);
    for (const [label, offsetMs] of [
      ['12 h later', 12 * 3_600_000],
      ['next night (+25 h)', 25 * 3_600_000],
      ['a week later (+8 d)', 8 * DAY],
    ] as const) {
      const out = path.join(tmp, `out-${offsetMs}`);
      await cp(base, out, { recursive: true });
      const second = await night(out, list, '2026-11-22', 1, ['--now', new Date(t1 + offsetMs).toISOString()]);
      const s = second.status;
      const st = (k: string) => s[k] ?? 0;
      rows.push(
        `| ${label} | ${second.wallS.toFixed(1)} | ${second.requests} | ${((100 * second.wallS) / first.wallS).toFixed(0)}% | ${((100 * second.requests) / first.requests).toFixed(0)}% | ${second.cpuS.toFixed(1)} | ${second.rssMb} MB | ads.txt cached ${st('ads.txt:cached')}, not_modified ${st('ads.txt:not_modified')}, ok ${st('ads.txt:ok')}, not_found ${st('ads.txt:not_found')}; robots.txt cached ${st('robots.txt:cached')}, not_modified ${st('robots.txt:not_modified')}, not_found ${st('robots.txt:not_found')} |`,
      );
      await rm(out, { recursive: true, force: true });
    }
    console.log(`| second run | wall s | requests | wall / first | requests / first | CPU s | peak RSS | second run statuses |`);
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
