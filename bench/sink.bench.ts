/**
 * Parquet sink: 2M ads_records-like rows through the snapshot writer, encoder in a worker
 * thread vs on the caller's thread. Each mode runs in its own child process so peak RSS is its
 * own. The producer yields to the event loop every 1,000 rows, as the crawl would, and a 10 ms
 * timer measures the longest event-loop stall: that is what a crawl's sockets and timers feel.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSnapshotWriter } from '../src/sink/index.js';

const ROWS = Number(process.env.SINK_BENCH_ROWS ?? 2_000_000);
const self = fileURLToPath(import.meta.url);

interface Result {
  mode: string;
  wallS: number;
  cpuS: number;
  peakRssMb: number;
  fileMb: number;
  maxStallMs: number;
  p99StallMs: number;
  waits: number;
}

async function measure(mode: 'worker' | 'inline'): Promise<Result> {
  const outDir = mkdtempSync(path.join(tmpdir(), 'adsnap-sink-bench-'));
  const stalls: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    stalls.push(now - last - 10);
    last = now;
  }, 10);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const w = await openSnapshotWriter({ outDir, snapshotDate: '2026-11-22', runId: `bench-${mode}`, tables: ['ads_records'], worker: mode === 'worker' });
  const systems = Array.from({ length: 300 }, (_, i) => `adsystem${i}.com`);
  for (let i = 0; i < ROWS; i++) {
    const s = (i * 2654435761) >>> 0;
    const p = w.write('ads_records', {
      subject: `publisher${Math.floor(i / 100)}.com`,
      file_kind: i % 5 === 0 ? 'app-ads.txt' : 'ads.txt',
      line_no: (i % 100) + 1,
      ad_system_domain: systems[s % 300]!,
      seller_account_id: `pub-${s % 1_000_000}`,
      relationship: s % 3 === 0 ? 'RESELLER' : 'DIRECT',
      cert_authority_id: s % 4 === 0 ? null : `f08c47fec0942fa${s % 10}`,
      extension: s % 50 === 0 ? 'comment' : null,
    });
    if (p) await p;
    if (i % 1000 === 999) await new Promise((r) => setImmediate(r));
  }
  const result = await w.commit();
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0); // whole process: every thread, the worker included
  clearInterval(timer);
  const size = result.parts.reduce((a, p) => a + statSync(p.path).size, 0);
  rmSync(outDir, { recursive: true, force: true });
  stalls.sort((a, b) => a - b);
  return {
    mode,
    wallS,
    cpuS: (cpu.user + cpu.system) / 1e6,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    fileMb: size / 1e6,
    maxStallMs: Math.max(0, stalls.at(-1) ?? 0),
    p99StallMs: Math.max(0, stalls[Math.floor(stalls.length * 0.99)] ?? 0),
    waits: w.stats().waits,
  };
}

function child(mode: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', self, '--sink-bench-child', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Result) : reject(new Error(`child ${mode} exited ${code}`))));
  });
}

export async function run(): Promise<void> {
  console.log(`${ROWS.toLocaleString('en-US')} ads_records rows, 65,536-row row groups, ZSTD level 3; producer yields every 1,000 rows\n`);
  console.log('| encoder | wall s | CPU s | rows/s | peak RSS | file | max loop stall | p99 stall | write() waits |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const mode of ['worker', 'inline']) {
    const r = await child(mode);
    console.log(
      `| ${r.mode === 'worker' ? 'worker thread (default)' : 'inline (same thread)'} | ${r.wallS.toFixed(1)} | ${r.cpuS.toFixed(1)} | ${Math.round(ROWS / r.wallS).toLocaleString('en-US')} | ${r.peakRssMb.toFixed(0)} MB | ${r.fileMb.toFixed(1)} MB | ${r.maxStallMs.toFixed(0)} ms | ${r.p99StallMs.toFixed(0)} ms | ${r.waits} |`,
    );
  }
}

const i = process.argv.indexOf('--sink-bench-child');
if (i >= 0) {
  const r = await measure(process.argv[i + 1] as 'worker' | 'inline');
  console.log(JSON.stringify(r));
  process.exit(0);
}
