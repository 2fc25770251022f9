/**
 * Issue 7 benchmark: a second, incremental crawl over the same simulated web where 5% of the
 * ads.txt files changed (simweb --epoch 1), against the first crawl: wall time and requests as a
 * fraction. Two spacings of the second run: the next night (robots.txt, 24 h, is stale; ads.txt,
 * 7 days by default, is still fresh) and eight days later (everything stale: revalidated).
 *
 *   npm run bench -- incremental                  (ADSNAP_BENCH_DOMAINS=20000 by default)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './corpus.js';

const N = Number(process.env.ADSNAP_BENCH_DOMAINS ?? 20_000);
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
    return { wallS, requests: m.counts.requests as number, status: m.counts.file_status as Record<string, number> };
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
    for (const [label, offsetMs] of [
      ['next night (+25 h)', 25 * 3_600_000],
      ['a week later (+8 d)', 8 * DAY],
    ] as const) {
      const out = path.join(tmp, `out-${offsetMs}`);
      const t1 = Date.now();
      const first = await night(out, list, '2026-11-21', 0, []);
      const second = await night(out, list, '2026-11-22', 1, ['--now', new Date(t1 + offsetMs).toISOString()]);
      const s = second.status;
      rows.push(
        `| ${label} | ${first.wallS.toFixed(1)} | ${first.requests} | ${second.wallS.toFixed(1)} | ${second.requests} | ${((100 * second.wallS) / first.wallS).toFixed(0)}% | ${((100 * second.requests) / first.requests).toFixed(0)}% | ads.txt cached ${s['ads.txt:cached'] ?? 0}, not_modified ${s['ads.txt:not_modified'] ?? 0}, ok ${s['ads.txt:ok'] ?? 0}; robots.txt not_modified ${s['robots.txt:not_modified'] ?? 0} |`,
      );
      await rm(out, { recursive: true, force: true });
    }
    console.log('| second run | first wall s | first requests | second wall s | second requests | wall | requests | second run statuses |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
