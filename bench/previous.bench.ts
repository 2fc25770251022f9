/**
 * Incremental-snapshot building blocks (docs/guide/nightly.md#incremental-snapshots):
 * 1. PreviousSnapshot lookups: cost per key, in batches of 1000 in random order (as the crawl
 *    asks), over a `files` table of 100k rows (and 1M with ADSNAP_BENCH_PREV_1M=1), written
 *    with the project's own snapshot writer; open time and RSS.
 * 2. BodyStore: write throughput and size for the real ads.txt / app-ads.txt / robots.txt /
 *    sellers.json corpus, the cost of a duplicate (the common case of an incremental run), and
 *    gzip vs brotli vs zstd (one-shot, the only form @bokuweb/zstd-wasm offers) on the same bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants as zc, gzipSync } from 'node:zlib';
import zstd from '@bokuweb/zstd-wasm';
import type { Row } from '../schemas/tables.js';
import { openSnapshotWriter, writeRunManifest } from '../src/sink/index.js';
import { BodyStore } from '../src/store/body-store.js';
import { PreviousSnapshot } from '../src/store/previous-snapshot.js';
import { corpusDir, hasCorpus } from './corpus.js';

const MB = 1024 * 1024;
const rssMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return Math.round(process.memoryUsage().rss / MB);
};

async function writeSnapshot(dir: string, n: number): Promise<void> {
  const date = '2026-11-15';
  const w = await openSnapshotWriter({ outDir: dir, snapshotDate: date, runId: 'bench', tables: ['files', 'fetches'] });
  const t0 = Date.UTC(2026, 10, 15, 10);
  for (let i = 0; i < n; i++) {
    const kind = i % 3 === 0 ? 'robots.txt' : 'ads.txt';
    const subject = `site${i}.example.com`;
    const url = `https://${subject}/${kind}`;
    const sha = createHash('sha256').update(String(i)).digest('hex');
    const fetchedAt = new Date(t0 + (i % 36000) * 1000);
    const p = w.write('files', { subject, file_kind: kind, via: 'root', url, status: 'ok', http_status: 200, valid: true, sha256: sha, content_type: 'text/plain', fetched_at: fetchedAt, etag: `"${sha.slice(0, 16)}"`, last_modified: 'Sun, 08 Nov 2026 10:00:00 GMT', fresh_until: new Date(fetchedAt.getTime() + 7 * 86400_000) } as Row<'files'>);
    if (p) await p;
    const q = w.write('fetches', { url, host: subject, subject, file_kind: kind, status_code: 200, final_url: url, redirects: [], content_type: 'text/plain', bytes: 1000, truncated: false, sha256: sha, etag: `"${sha.slice(0, 16)}"`, attempts: 1, started_at: fetchedAt, duration_ms: 50, last_modified: null, error: null, remote_ip: null, tdm_reservation: null, tdm_policy: null, x_robots_tag: [], content_usage: null, link: null, crawler_price: null } as Row<'fetches'>);
    if (q) await q;
  }
  const c = await w.commit();
  await writeRunManifest(dir, 'bench', { run_id: 'bench', snapshot_date: date, tables: c.tables });
}

async function lookupRow(n: number): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'adsnap-bench-prev-'));
  try {
    await writeSnapshot(dir, n);
    let t = performance.now();
    const snap = await PreviousSnapshot.open(dir, '2026-11-15');
    const openMs = performance.now() - t;
    const rssOpen = rssMb();
    const duckMb = Math.round((await snap.memoryBytes()) / MB);
    // Random order, every key once, plus 10% keys that are absent.
    const keys = Array.from({ length: n + n / 10 }, (_, i) => {
      const j = (i * 7919) % (n + n / 10);
      return j < n ? { subject: `site${j}.example.com`, fileKind: j % 3 === 0 ? 'robots.txt' : 'ads.txt' } : { subject: `new${j}.example.com`, fileKind: 'ads.txt' };
    });
    const cells: string[] = [];
    for (const checkBodies of [false, true]) {
      const s = checkBodies ? snap : await PreviousSnapshot.open(dir, '2026-11-15', { checkBodies: false });
      t = performance.now();
      let found = 0;
      for (let b = 0; b < keys.length; b += 1000) found += (await s.lookup(keys.slice(b, b + 1000))).size;
      const us = ((performance.now() - t) * 1000) / keys.length;
      if (found !== n) throw new Error(`found ${found} of ${n}`);
      cells.push(us.toFixed(1));
      if (!checkBodies) s.close();
    }
    const rssAfter = rssMb();
    snap.close();
    return `| ${n.toLocaleString('en-US')} | ${(openMs / 1000).toFixed(2)} s | ${cells[0]} µs | ${cells[1]} µs | ${duckMb} MB | ${rssOpen} MB | ${rssAfter} MB |`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function corpusBodies(): Uint8Array[] {
  if (!hasCorpus) return Array.from({ length: 200 }, (_, i) => new TextEncoder().encode(`ex${i}.com, ${i}, DIRECT\n`.repeat(200)));
  const lines = readFileSync(path.join(corpusDir, 'MANIFEST.tsv'), 'utf8').split('\n').slice(1);
  return lines
    .map((l) => l.split('\t')[0]!)
    .filter((p) => /^(adstxt|app-ads|robots|sellers)\//.test(p))
    .map((p) => new Uint8Array(readFileSync(path.join(corpusDir, p))));
}

async function storeRows(): Promise<string[]> {
  const bodies = corpusBodies();
  const total = bodies.reduce((a, b) => a + b.length, 0);
  const rows: string[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'adsnap-bench-bodies-'));
  try {
    const store = BodyStore.forSnapshot(dir, { maxBytes: 256 * MB });
    const writeAll = async () => {
      const t = performance.now();
      let dedup = 0;
      // 64 at a time, 16 KiB chunks, as the crawl tees them.
      for (let i = 0; i < bodies.length; i += 64) {
        const rs = await Promise.all(
          bodies.slice(i, i + 64).map(async (b) => {
            const w = store.writer();
            for (let o = 0; o < b.length; o += 16384) {
              const p = w.push(b.subarray(o, o + 16384));
              if (p) await p;
            }
            return w.finish();
          }),
        );
        dedup += rs.filter((r) => r.deduplicated).length;
      }
      return { ms: performance.now() - t, dedup };
    };
    const first = await writeAll();
    const stored = bodies.length - first.dedup;
    const second = await writeAll();
    rows.push(`| first write (${bodies.length} bodies, ${(total / MB).toFixed(1)} MB) | ${(total / MB / (first.ms / 1000)).toFixed(0)} MB/s | ${((first.ms * 1000) / bodies.length).toFixed(0)} µs/body | ${stored} stored |`);
    rows.push(`| same bodies again (all duplicates) | ${(total / MB / (second.ms / 1000)).toFixed(0)} MB/s | ${((second.ms * 1000) / bodies.length).toFixed(0)} µs/body | ${second.dedup} deduplicated |`);
    const big = randomBytes(20 * MB);
    const t = performance.now();
    const w = store.writer();
    for (let o = 0; o < big.length; o += 65536) {
      const p = w.push(big.subarray(o, o + 65536));
      if (p) await p;
    }
    await w.finish();
    const ms = performance.now() - t;
    rows.push(`| one 20 MiB incompressible body, 64 KiB chunks | ${(20 / (ms / 1000)).toFixed(0)} MB/s | ${ms.toFixed(0)} ms | streamed via temp file |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

async function codecRows(): Promise<string[]> {
  const bodies = corpusBodies();
  const total = bodies.reduce((a, b) => a + b.length, 0);
  await zstd.init();
  const codecs: [string, (b: Uint8Array) => Uint8Array][] = [
    ['gzip 6 (chosen: streaming in node:zlib)', (b) => gzipSync(b, { level: 6 })],
    ['gzip 1', (b) => gzipSync(b, { level: 1 })],
    ['brotli 5', (b) => brotliCompressSync(b, { params: { [zc.BROTLI_PARAM_QUALITY]: 5 } })],
    ['zstd 3 (one-shot only)', (b) => zstd.compress(b, 3)],
  ];
  return codecs.map(([name, f]) => {
    const t = performance.now();
    let out = 0;
    for (const b of bodies) out += f(b).length;
    const ms = performance.now() - t;
    return `| ${name} | ${((100 * out) / total).toFixed(1)} % | ${(total / MB / (ms / 1000)).toFixed(0)} MB/s |`;
  });
}

export async function run(): Promise<void> {
  console.log('\n### PreviousSnapshot.lookup, batches of 1000 keys in random order (+10% absent keys)\n');
  console.log('| files rows | open | per key (no body check) | per key (with body check) | index memory | process RSS after open | after lookups |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  console.log(await lookupRow(100_000));
  if (process.env.ADSNAP_BENCH_PREV_1M === '1') console.log(await lookupRow(1_000_000));
  console.log(`\n### BodyStore writes (${hasCorpus ? 'corpus bodies' : 'synthetic bodies: corpus absent'})\n`);
  console.log('| case | throughput | per body | result |');
  console.log('|---|---:|---:|---|');
  for (const r of await storeRows()) console.log(r);
  console.log('\n### Compression of the same bodies (compressed size as % of original)\n');
  console.log('| codec | size | speed |');
  console.log('|---|---:|---:|');
  for (const r of await codecRows()) console.log(r);
}
