/**
 * What the AI-crawler tables cost in a night's Parquet bytes. A crawl of N synthetic
 * sites of the simulated web whose robots.txt are the corpus's real files (robots/*.txt, one per
 * site, cycled; a fixture host shadows only the paths it defines, so ads.txt, subdomains,
 * partners and sellers.json stay the simulated web's), with the shipped agents catalogue. Prints
 * every table's rows and bytes (the committed parts the manifest lists) and the share of
 * robots_agent_access, robots_usage_signals and agents_catalogue in the night's total; the
 * budget is 20 % (docs/reference/ai-crawlers.md#size).
 *
 *   npm run bench -- ai-crawlers                    (2,000 sites; ADSNAP_BENCH_SITES=… for others)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { corpusDir, hasCorpus, repoRoot } from './corpus.js';
import { spawnSimweb } from './simweb-child.js';

const SITES = Number(process.env.ADSNAP_BENCH_SITES ?? 2000);
const SEED = 'ai-crawlers';
const AI_TABLES = ['robots_agent_access', 'robots_usage_signals', 'agents_catalogue'];

function runCrawl(args: string[]): Promise<number> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'adsnap.js'), 'crawl', ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

export async function run(): Promise<void> {
  if (!hasCorpus) {
    console.log('skipped: the corpus (robots/) is not on this machine');
    return;
  }
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'adsnap-bench-ai-'));
  try {
    // 1. The list the simulated web will serve (same seed, same hosts).
    const list = path.join(tmp, 'domains.txt');
    const first = await spawnSimweb(['--hosts', String(SITES), '--seed', SEED, '--list', list, '--no-hostile']);
    first.child.kill('SIGTERM');
    const hosts = readFileSync(list, 'utf8').split('\n').filter(Boolean);
    // 2. Each site's robots.txt: a real file of the corpus.
    const real = readdirSync(path.join(corpusDir, 'robots')).filter((f) => f.endsWith('.txt')).sort();
    const fixtures = path.join(tmp, 'fixtures');
    for (const [i, h] of hosts.entries()) {
      mkdirSync(path.join(fixtures, h), { recursive: true });
      writeFileSync(path.join(fixtures, h, 'robots.txt'), readFileSync(path.join(corpusDir, 'robots', real[i % real.length]!)));
    }
    const web = await spawnSimweb(['--hosts', String(SITES), '--seed', SEED, '--fixtures', fixtures, '--no-hostile']);
    const out = path.join(tmp, 'out');
    const t0 = Date.now();
    let code: number;
    try {
      code = await runCrawl(['--domains', list, '--out', out, '--snapshot-date', '2026-11-25', '--progress', 'none', '--concurrency', '128', ...web.args]);
    } finally {
      web.child.kill('SIGTERM');
    }
    if (code !== 0) throw new Error(`crawl exited ${code}`);
    const manifest = JSON.parse(readFileSync(path.join(out, '_runs', readdirSync(path.join(out, '_runs'))[0]!), 'utf8')) as { tables: Record<string, { rows: number; parts: string[] }> };
    const sizes = Object.entries(manifest.tables).map(([t, x]) => ({ table: t, rows: x.rows, bytes: x.parts.reduce((n, p) => n + statSync(path.join(out, p)).size, 0) }));
    const total = sizes.reduce((n, s) => n + s.bytes, 0);
    const ai = sizes.filter((s) => AI_TABLES.includes(s.table)).reduce((n, s) => n + s.bytes, 0);
    console.log(`${SITES} sites, robots.txt from ${real.length} real files, crawl ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    console.log('| table | rows | bytes | share of the night |');
    console.log('|---|---:|---:|---:|');
    for (const s of sizes.sort((a, b) => b.bytes - a.bytes)) console.log(`| ${s.table} | ${s.rows} | ${s.bytes} | ${((100 * s.bytes) / total).toFixed(2)} % |`);
    console.log(`| **AI-crawler tables** | | ${ai} | **${((100 * ai) / total).toFixed(2)} %** |`);
    console.log(`| night total | | ${total} | 100 % |`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
