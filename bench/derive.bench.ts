/**
 * The commit's derivation of one night, alone: the derived tables of a kept night written again as
 * a crawl's commit writes them (deriveNight from the commit's 128MB, with its doublings, DuckDB's
 * allocator on one arena), each run in a fresh process on a copy of the night (its files linked,
 * no derived set), for its wall time, the limits it reached and its peak RSS. `npm run build` first.
 *
 *   ADSNAP_BENCH_NIGHT_DIR=ROOT npm run bench -- derive     (ROOT: a snapshot root; its latest night)
 *
 * ROOT can be the night `npm run bench -- realweb` keeps (ADSNAP_BENCH_KEEP=1). ADSNAP_BENCH_RUNS
 * runs (default 2); ADSNAP_COMMIT_MEMORY the first limit, as for the crawl; ADSNAP_DERIVE_TIMING=1
 * prints each table's time.
 */
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMMIT_DERIVE_DOUBLINGS } from '../pipelines/run-commit.js';
import { DEFAULT_COMMIT_MEMORY } from '../src/sink/compact.js';
import { completedRuns } from '../src/store/run-manifests.js';
import { oneDuckDbArena } from '../src/util/duckdb-size.js';
import { repoRoot } from './corpus.js';

const RUNS = Number(process.env.ADSNAP_BENCH_RUNS ?? 2);

/** `from` linked file by file into `to`, without its derived set or staging folder. */
function linkTree(from: string, to: string, top = true): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    if (top && (name === '_derived' || name === '_staging')) continue;
    const src = path.join(from, name);
    if (statSync(src).isDirectory()) linkTree(src, path.join(to, name), false);
    else linkSync(src, path.join(to, name));
  }
}

/** What the child runs: the commit's call (pipelines/run-commit.ts), timed, its own peak RSS. */
const CHILD = `
const { deriveNight } = await import(process.argv[1]);
const retries = [];
const t0 = performance.now();
await deriveNight(process.argv[2], process.argv[3], { memoryLimit: process.argv[4], memoryDoublings: Number(process.argv[5]), onMemoryRetry: (next) => retries.push(next) });
console.log(JSON.stringify({ s: (performance.now() - t0) / 1000, retries, rssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));
`;

export async function run(): Promise<void> {
  const root = process.env.ADSNAP_BENCH_NIGHT_DIR;
  if (!root) {
    console.log('skipped: set ADSNAP_BENCH_NIGHT_DIR to a snapshot root (e.g. the night `npm run bench -- realweb` keeps with ADSNAP_BENCH_KEEP=1)');
    return;
  }
  const night = (await completedRuns(root)).map((r) => r.snapshotDate).sort().at(-1);
  if (!night) throw new Error(`${root}: no complete run`);
  const limit = process.env.ADSNAP_COMMIT_MEMORY ?? DEFAULT_COMMIT_MEMORY;
  // The crawl's allocator option, as the crawl command sets it before its commit loads DuckDB.
  const env = { ...process.env };
  oneDuckDbArena(env);
  console.log(`the derivation of ${night} in ${root}, from ${limit} as the commit runs it, ${RUNS} runs, each in a fresh process`);
  console.log('| run | wall s | limits reached | peak RSS |\n|---|---|---|---|');
  for (let i = 1; i <= RUNS; i++) {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'adsnap-bench-derive-'));
    try {
      const copy = path.join(tmp, 'root');
      linkTree(root, copy);
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, path.join(repoRoot, 'dist', 'src', 'report', 'derived.js'), copy, night, limit, String(COMMIT_DERIVE_DOUBLINGS)], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'inherit'] });
      if (child.status !== 0) throw new Error(`derivation failed (exit ${child.status}; its stderr is above)`);
      const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { s: number; retries: string[]; rssMb: number };
      console.log(`| ${i} | ${r.s.toFixed(1)} | ${[limit, ...r.retries].join(' → ')} | ${r.rssMb} MB |`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
}
