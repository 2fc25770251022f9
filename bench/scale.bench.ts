/**
 * A guard against the next regression of the figures at scale (issue 34, item 7): one night
 * crawled from the simulated web at BASE sites, written again widened to two sizes (×SMALL and
 * ×LARGE: by default 2k and 50k sites), each derived as the commit derives it, then the report
 * (ADSNAP_REPORT_TIMING=1: each figure's time) and the headline query (`adsnap sql ROOT -c
 * "SELECT * FROM headline_figures"`) run on each as the CLI runs them, in a child process. Prints
 * each step's and each figure's cost per 1k sites at both sizes and the ratio large / small: a
 * figure whose cost per site grows with the night (a ratio well above 1) is the regression to
 * look at. Timings live here, never in a test. docs/performance.md keeps the ratios.
 *
 *   npm run bench -- scale   (ADSNAP_BENCH_SCALE_BASE=2000 sites crawled, ADSNAP_BENCH_SCALE_SMALL=1,
 *                             ADSNAP_BENCH_SCALE_LARGE=25; ADSNAP_BENCH_KEEP=1 keeps the roots)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './corpus.js';

const BASE_SITES = Number(process.env.ADSNAP_BENCH_SCALE_BASE ?? 2_000);
const SIZES = [Number(process.env.ADSNAP_BENCH_SCALE_SMALL ?? 1), Number(process.env.ADSNAP_BENCH_SCALE_LARGE ?? 25)] as const;
const bin = path.join(repoRoot, 'bin', 'adsnap.js');

interface Run {
  wallS: number;
  cpuS: number;
  rssMb: number;
  stdout: string;
  stderr: string;
}

/** `adsnap ARGS…` in a child, with its wall time, and its CPU time and peak RSS from the kernel's accounting. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', process.execPath, bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`adsnap ${args[0]} failed: ${stderr.slice(-2000)}`);
  const [u, s, m] = stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wallS: (performance.now() - t0) / 1000, cpuS: u! + s!, rssMb: Math.round(m! / 1024), stdout, stderr };
}

/** The report's per-figure times from ADSNAP_REPORT_TIMING's lines (`key: N ms, RSS …`). */
function figureTimes(stderr: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of stderr.matchAll(/^([a-z_]+\.[a-z_0-9]+|setup [^:]*): (\d+) ms/gm)) out.set(m[1]!.slice(0, 48), Number(m[2]));
  return out;
}

export async function run(): Promise<void> {
  process.env.ADSNAP_BENCH_DOMAINS ??= String(BASE_SITES);
  // Loaded after the size is set: the simulated web's size is read when these modules load.
  const { night } = await import('./incremental.bench.js');
  const { writeWideNight } = await import('./report.bench.js');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'adsnap-bench-scale-'));
  try {
    const crawled = path.join(tmp, 'night');
    const n = await night(crawled, path.join(tmp, 'domains.txt'), '2026-11-01', 0, ['--now', '2026-11-01T02:00:00Z']);
    console.log(`crawled ${BASE_SITES} sites: ${n.wallS.toFixed(1)} s`);
    const rows: { sites: number; steps: Map<string, Run>; figures: Map<string, number> }[] = [];
    for (const factor of SIZES) {
      const root = path.join(tmp, `x${factor}`);
      await writeWideNight(crawled, root, factor, BASE_SITES);
      const steps = new Map<string, Run>();
      steps.set('derive', await cli(['derive', root]));
      const report = await cli(['report', root, '--out', path.join(tmp, `report-x${factor}`)], { ADSNAP_REPORT_TIMING: '1' });
      steps.set('report', report);
      steps.set('headline query', await cli(['sql', root, '--format', 'csv', '-c', 'SELECT * FROM headline_figures']));
      rows.push({ sites: factor * BASE_SITES, steps, figures: figureTimes(report.stderr) });
      console.log(`${factor * BASE_SITES} sites: ${[...steps].map(([k, r]) => `${k} ${r.wallS.toFixed(1)} s wall, ${r.cpuS.toFixed(1)} s CPU, ${r.rssMb} MB`).join('; ')}`);
    }
    const [a, b] = rows as [(typeof rows)[0], (typeof rows)[0]];
    const per1k = (ms: number, sites: number) => ms / (sites / 1000);
    console.log(`\n| step or figure | ms per 1k sites at ${a.sites} | at ${b.sites} | ratio |`);
    console.log('|---|---|---|---|');
    const line = (name: string, x: number, y: number) => console.log(`| ${name} | ${per1k(x, a.sites).toFixed(1)} | ${per1k(y, b.sites).toFixed(1)} | ${(per1k(y, b.sites) / Math.max(per1k(x, a.sites), 1e-9)).toFixed(2)} |`);
    for (const step of a.steps.keys()) line(`${step} (CPU)`, a.steps.get(step)!.cpuS * 1000, b.steps.get(step)!.cpuS * 1000);
    for (const [key, ms] of [...b.figures].sort((x, y) => y[1] - x[1])) line(key, a.figures.get(key) ?? 0, ms);
  } finally {
    if (process.env.ADSNAP_BENCH_KEEP) console.log(`kept ${tmp}`);
    else await rm(tmp, { recursive: true, force: true });
  }
}
