/**
 * The sellers phase of a real crawl with Google's size of sellers.json: 100 publishers
 * whose ads.txt name 1,000 small ad systems (100 entries each) and one exchange serving a
 * 1.2M-seller, ~150 MB sellers.json (70% confidential entries, as Google's; pretty-printed) whose
 * 100 BOTH entries name intermediaries (round 1, 20 entries each). The simulated web serves them
 * from fixture files in its own process; the crawl is the real binary (`bin/adsnap.js`, run
 * `npm run build` first), its resident memory sampled from /proc every 100 ms.
 *
 * The sellers phase is timed from its first sellers.json request to the end of its last
 * (`fetches.started_at` + `duration_ms`); its MB/s is the sellers.json bytes read over that time,
 * and the big file's own MB/s is its bytes over its request's duration (streamed through the
 * parser into the Parquet writer, no body held). Peak RSS is the crawl process's, sampled while
 * the sellers phase ran, against the crawl's 400 MB target (docs/performance.md, "The sellers phase").
 *
 *   npm run bench -- sellers                      (ADSNAP_BENCH_SELLERS_CRAWL=0 skips this part)
 *   ADSNAP_BENCH_BIG_SELLERS=1200000 ADSNAP_BENCH_SMALL_SYSTEMS=1000 …
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { repoRoot, treeRssOf } from './corpus.js';
import { spawnSimweb } from './simweb-child.js';

const BIG_SELLERS = Number(process.env.ADSNAP_BENCH_BIG_SELLERS ?? 1_200_000);
const SMALL_SYSTEMS = Number(process.env.ADSNAP_BENCH_SMALL_SYSTEMS ?? 1000);
const PUBLISHERS = 100;
const INTERMEDIARIES = 100;
const RSS_TARGET_MB = 400;
const MB = 1e6;
const bin = path.join(repoRoot, 'bin', 'adsnap.js');
/** More `adsnap crawl` arguments (e.g. `--no-bodies`), space-separated. */
const CRAWL_ARGS = (process.env.ADSNAP_BENCH_CRAWL_ARGS ?? '').split(' ').filter(Boolean);
/** Node/V8 flags for the crawl process only (e.g. `--cpu-prof`), space-separated. */
const CRAWL_NODE_FLAGS = (process.env.ADSNAP_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

const pad = (n: number, w: number) => String(n).padStart(w, '0');
const bigId = (i: number) => `pub-${1_000_000_000_000_000 + i * 7919}`; // 16 digits, as Google's, unique
const ssp = (k: number) => `ssp-${pad(k, 4)}.test`;

async function writeBig(file: string): Promise<number> {
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (s: string) => {
    bytes += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  await write('{\n  "contact_email": "sellers@big-exchange.test",\n  "contact_address": "1 Exchange Way",\n  "version": "1.0",\n  "identifiers": [\n    {\n      "name": "TAG-ID",\n      "value": "f08c47fec0942fa0"\n    }\n  ],\n  "sellers": [');
  let batch = '';
  for (let i = 0; i < BIG_SELLERS; i++) {
    const sep = i ? ',' : '';
    let e: string;
    if (i < INTERMEDIARIES) e = `{\n      "seller_id": "${bigId(i)}",\n      "seller_type": "BOTH",\n      "name": "Intermediary ${i}",\n      "domain": "mid-${pad(i, 3)}.test"\n    }`;
    else if (i % 10 < 7) e = `{\n      "seller_id": "${bigId(i)}",\n      "is_confidential": 1,\n      "seller_type": "PUBLISHER"\n    }`;
    else e = `{\n      "seller_id": "${bigId(i)}",\n      "seller_type": "PUBLISHER",\n      "name": "Publisher ${i} Media",\n      "domain": "publisher-${i}.example.com"\n    }`;
    batch += `${sep}\n    ${e}`;
    if (batch.length > 1 << 20) {
      await write(batch);
      batch = '';
    }
  }
  await write(`${batch}\n  ]\n}\n`);
  out.end();
  await once(out, 'finish');
  return bytes;
}

function small(host: string, n: number, prefix: string): string {
  const sellers = Array.from({ length: n }, (_, i) => ({ seller_id: `${prefix}-${i}`, seller_type: 'PUBLISHER', name: `Publisher ${i} of ${host}`, domain: `site${i}.${host}` }));
  return JSON.stringify({ contact_email: `ops@${host}`, version: '1.0', sellers }) + '\n';
}

/** Fixture hosts for the simulated web (src/simweb/fixtures.ts) and the domain list. */
async function makeWeb(dir: string): Promise<{ fixtures: string; list: string; bigBytes: number }> {
  const fixtures = path.join(dir, 'fixtures');
  const host = (h: string) => {
    mkdirSync(path.join(fixtures, h), { recursive: true });
    return path.join(fixtures, h);
  };
  const bigBytes = await writeBig(path.join(host('big-exchange.test'), 'sellers.json'));
  for (let k = 0; k < SMALL_SYSTEMS; k++) writeFileSync(path.join(host(ssp(k)), 'sellers.json'), small(ssp(k), 100, 's'));
  for (let m = 0; m < INTERMEDIARIES; m++) writeFileSync(path.join(host(`mid-${pad(m, 3)}.test`), 'sellers.json'), small(`mid-${pad(m, 3)}.test`, 20, 'm'));
  const domains: string[] = [];
  const perPublisher = Math.ceil(SMALL_SYSTEMS / PUBLISHERS);
  for (let p = 0; p < PUBLISHERS; p++) {
    const name = `pub-${pad(p, 3)}.test`;
    domains.push(name);
    const lines = [`big-exchange.test, ${bigId(INTERMEDIARIES + p * 10 + 7)}, DIRECT, f08c47fec0942fa0`];
    for (let j = 0; j < perPublisher; j++) {
      const k = p * perPublisher + j;
      if (k < SMALL_SYSTEMS) lines.push(`${ssp(k)}, s-${j}, DIRECT`);
    }
    writeFileSync(path.join(host(name), 'ads.txt'), lines.join('\n') + '\n');
  }
  const list = path.join(dir, 'domains.txt');
  writeFileSync(list, domains.join('\n') + '\n');
  return { fixtures, list, bigBytes };
}

async function startWeb(fixtures: string): Promise<{ child: ChildProcess; args: string[] }> {
  return spawnSimweb(['--hosts', '0', '--no-hostile', '--fixtures', fixtures]);
}


interface SellersFetches {
  first: number;
  last: number;
  bytes: number;
  files: number;
  bigBytes: number;
  bigMs: number;
  rows: number;
}

async function sellersFetches(out: string): Promise<SellersFetches> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    const glob = (t: string) => `read_parquet('${path.join(out, t, '*', '*.parquet')}')`;
    const r = await con.runAndReadAll(`SELECT epoch_ms(min(started_at))::DOUBLE AS first, max(epoch_ms(started_at) + duration_ms)::DOUBLE AS last,
      sum(bytes)::DOUBLE AS bytes, count(*)::DOUBLE AS files,
      max(bytes) FILTER (WHERE subject = 'big-exchange.test')::DOUBLE AS big_bytes, max(duration_ms) FILTER (WHERE subject = 'big-exchange.test')::DOUBLE AS big_ms
      FROM ${glob('fetches')} WHERE file_kind = 'sellers.json'`);
    const [first, last, bytes, files, bigBytes, bigMs] = r.getRows()[0]!.map(Number) as number[];
    const rows = Number((await con.runAndReadAll(`SELECT count(*)::DOUBLE FROM ${glob('sellers')}`)).getRows()[0]![0]);
    return { first: first!, last: last!, bytes: bytes!, files: files!, bigBytes: bigBytes!, bigMs: bigMs!, rows };
  } finally {
    con.closeSync();
  }
}

export async function runSellersCrawl(tmp: string): Promise<void> {
  const dir = path.join(tmp, 'crawl');
  const t0 = performance.now();
  const web0 = await makeWeb(dir);
  console.log(`\n### A crawl's sellers phase with a ${(web0.bigBytes / MB).toFixed(0)} MB, ${BIG_SELLERS.toLocaleString('en-US')}-seller sellers.json beside ${SMALL_SYSTEMS} small ones\n`);
  console.log(`(files written in ${((performance.now() - t0) / 1000).toFixed(0)} s; simulated web in its own process; crawl = bin/adsnap.js, concurrency 64, 16 sellers.json at a time)\n`);
  const web = await startWeb(web0.fixtures);
  const out = path.join(dir, 'out');
  try {
    const started = Date.now();
    const child = spawn(process.execPath, [...CRAWL_NODE_FLAGS, bin, 'crawl', '--domains', web0.list, '--out', out, '--progress', 'none', '--concurrency', '64', ...CRAWL_ARGS, ...web.args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const samples: { at: number; mb: number }[] = [];
    const sampler = setInterval(() => {
      const mb = treeRssOf(child.pid!);
      if (mb !== null) samples.push({ at: Date.now(), mb });
    }, 100);
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    clearInterval(sampler);
    const wallS = (Date.now() - started) / 1000;
    if (code !== 0) throw new Error(`crawl failed (${code}): ${stderr.slice(-2000)}`);
    const manifest = JSON.parse(readFileSync(path.join(out, '_runs', (await readdir(path.join(out, '_runs')))[0]!), 'utf8'));
    const f = await sellersFetches(out);
    const phaseS = (f.last - f.first) / 1000;
    const during = samples.filter((s) => s.at >= f.first && s.at <= f.last).map((s) => s.mb);
    const peakSellers = Math.max(...during);
    const beforeCommit = Math.max(...samples.filter((s) => s.at <= f.last).map((s) => s.mb));
    console.log('| sellers.json files | sellers rows | MB read | sellers phase s | MB/s (phase) | big file s | MB/s (big file) | peak RSS in the phase | target | crawl wall s | commit peak RSS |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    console.log(
      `| ${f.files} (${manifest.sellers_rounds.rounds.map((r: { round: number; files: number }) => `round ${r.round}: ${r.files}`).join(', ')}) | ${f.rows.toLocaleString('en-US')} | ${(f.bytes / MB).toFixed(0)} | ${phaseS.toFixed(1)} | ${(f.bytes / MB / phaseS).toFixed(1)} | ${(f.bigMs / 1000).toFixed(1)} | ${(f.bigBytes / MB / (f.bigMs / 1000)).toFixed(1)} | **${peakSellers.toFixed(0)} MB** | ${peakSellers < RSS_TARGET_MB ? 'met' : '**not met**'} (≤ ${RSS_TARGET_MB} MB) | ${wallS.toFixed(1)} | ${manifest.commit_peak_rss_mb} MB |`,
    );
    console.log(`\npeak RSS before the commit ${beforeCommit.toFixed(0)} MB; process max RSS ${manifest.resources.max_rss_mb} MB (the commit's compaction included); compaction ${manifest.commit_compact_s} s`);
  } finally {
    web.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}
