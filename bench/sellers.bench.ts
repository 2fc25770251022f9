/**
 * sellers.json parse throughput and peak RSS (`npm run bench -- sellers`):
 * - the largest corpus sellers.json, its entries repeated (unique ids) to ~100 MB;
 * - a 200 MB synthetic sellers.json;
 * both written to a temp file and streamed from disk in 64 KiB chunks through SellersJsonParser.
 * Each measurement runs in a fresh child process (this file, forked with CHILD_ENV set), so
 * its peak RSS is that of a process doing only this parse. Target: RSS stays under 200 MB. For comparison, @streamparser/json (the generic streaming
 * parser installed) on the same repeated-corpus file, emitting `$.sellers.*` with keepStack false.
 * Also: store-page parsing on the real Google Play pages, and a whole crawl's sellers phase with a
 * 1.2M-seller, ~150 MB sellers.json beside 1,000 small ones (bench/sellers-crawl.ts; needs
 * `npm run build`; ADSNAP_BENCH_SELLERS_CRAWL=0 skips it).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { JSONParser } from '@streamparser/json';
import { SellersJsonParser } from '../src/parse/sellers/index.js';
import { parseStorePageHtml } from '../src/parse/store/index.js';
import { corpusDir, hasCorpus } from './corpus.js';
import { runSellersCrawl } from './sellers-crawl.js';

const MB = 1e6;
const gc = (globalThis as { gc?: () => void }).gc;

async function writeDoc(file: string, head: string, targetBytes: number, entry: (i: number) => string): Promise<number> {
  const out = createWriteStream(file);
  let size = 0;
  let i = 0;
  const write = async (s: string) => {
    size += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  await write(head);
  while (size < targetBytes) await write((i ? ',\n' : '\n') + entry(i++));
  await write('\n  ]\n}\n');
  out.end();
  await once(out, 'finish');
  return i;
}

interface Measured {
  seconds: number;
  bytes: number;
  sellers: number;
  peakRss: number;
  status: string;
}

const CHILD_ENV = 'ADSNAP_SELLERS_BENCH_CHILD';
type ParserName = 'adsnap' | 'streamparser';

/** Runs `measureHere` in a fresh child process (tsx loaded, as in the parent) and returns its result. */
async function measure(file: string, parse: ParserName): Promise<Measured> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    env: { ...process.env, [CHILD_ENV]: JSON.stringify({ file, parse }) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [result] = (await once(child, 'message')) as [Measured];
  await once(child, 'exit');
  return result;
}

async function measureHere(file: string, parse: ParserName): Promise<Measured> {
  gc?.();
  let peakRss = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10);
  const t0 = performance.now();
  let bytes = 0;
  let sellers = 0;
  let status = '';
  if (parse === 'adsnap') {
    const p = new SellersJsonParser({ onSeller: () => void sellers++ });
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 16 })) {
      bytes += chunk.length;
      p.push(chunk as Buffer);
    }
    status = p.end().status;
  } else {
    const p = new JSONParser({ paths: ['$.sellers.*'], keepStack: false });
    p.onValue = () => void sellers++;
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 16 })) {
      bytes += chunk.length;
      p.write(chunk as Buffer);
    }
    status = 'n/a';
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  return { seconds, bytes, sellers, peakRss, status };
}

const row = (name: string, parser: string, m: Measured) =>
  `| ${name} | ${parser} | ${(m.bytes / MB).toFixed(0)} | ${m.sellers.toLocaleString('en-US')} | ${m.seconds.toFixed(2)} | **${(m.bytes / MB / m.seconds).toFixed(1)}** | ${((m.sellers / m.seconds) / 1000).toFixed(0)}k | ${(m.peakRss / MB).toFixed(0)} | ${m.status} |`;

export async function run(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'adsnap-sellers-bench-'));
  try {
    console.log(`node ${process.version}; 64 KiB read chunks; each row a fresh process, peak RSS sampled every 10 ms\n`);
    console.log('| input | parser | MB | sellers | s | MB/s | sellers/s | peak RSS MB | status |');
    console.log('|---|---|---|---|---|---|---|---|---|');

    if (hasCorpus) {
      // The largest corpus file, its entries repeated with unique ids, pretty-printed as the original.
      const files = await readdir(path.join(corpusDir, 'sellers'));
      const sizes = await Promise.all(files.map(async (f) => [f, (await stat(path.join(corpusDir, 'sellers', f))).size] as const));
      const [largest] = sizes.sort((a, b) => b[1] - a[1])[0]!;
      const doc = JSON.parse(await readFile(path.join(corpusDir, 'sellers', largest), 'utf8')) as { sellers: Record<string, unknown>[] };
      const { sellers, ...parent } = doc;
      const head = JSON.stringify(parent, null, 2).replace(/\n}$/, ',\n  "sellers": [');
      const repeated = path.join(dir, 'repeated.json');
      await writeDoc(repeated, head, 100 * MB, (i) => JSON.stringify({ ...sellers[i % sellers.length], seller_id: `${String(sellers[i % sellers.length]!.seller_id)}-${Math.floor(i / sellers.length)}` }, null, 2));
      console.log(row(`${largest} ×N`, 'adsnap SellersJsonParser', await measure(repeated, 'adsnap')));
      console.log(row(`${largest} ×N`, '@streamparser/json', await measure(repeated, 'streamparser')));
      await rm(repeated);
    }

    const synthetic = path.join(dir, 'synthetic.json');
    const head = '{\n  "contact_email": "adops@exchange.example",\n  "contact_address": "1 Example Way",\n  "version": "1.0",\n  "identifiers": [],\n  "sellers": [';
    await writeDoc(synthetic, head, 200 * MB, (i) =>
      i % 5 === 0
        ? `    {"seller_id": "${(0x10000000 + i).toString(16)}", "seller_type": "PUBLISHER", "is_confidential": 1}`
        : `    {"seller_id": "pub-${1000000 + i}", "seller_type": "${i % 3 ? 'PUBLISHER' : 'INTERMEDIARY'}", "name": "Séller ${i} \\"Media\\"", "domain": "site${i}.example.com", "comment": "added 2026-11-${String(1 + (i % 28)).padStart(2, '0')}"}`,
    );
    console.log(row('synthetic 200 MB', 'adsnap SellersJsonParser', await measure(synthetic, 'adsnap')));
    console.log(row('synthetic 200 MB', '@streamparser/json', await measure(synthetic, 'streamparser')));
    await rm(synthetic);

    if (hasCorpus) {
      console.log('\n| store page (corpus/stores) | KB | ms per parse (median of 5) |');
      console.log('|---|---|---|');
      for (const f of (await readdir(path.join(corpusDir, 'stores'))).sort()) {
        const html = await readFile(path.join(corpusDir, 'stores', f), 'utf8');
        const times: number[] = [];
        for (let i = 0; i < 5; i++) {
          const t = performance.now();
          parseStorePageHtml(html, 'google_play');
          times.push(performance.now() - t);
        }
        console.log(`| ${f} | ${(html.length / 1000).toFixed(0)} | ${times.sort((a, b) => a - b)[2]!.toFixed(1)} |`);
      }
    }

    // A whole crawl's sellers phase with Google's size of file: bench/sellers-crawl.ts.
    if (process.env.ADSNAP_BENCH_SELLERS_CRAWL !== '0') await runSellersCrawl(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.env[CHILD_ENV] && process.send) {
  const { file, parse } = JSON.parse(process.env[CHILD_ENV]) as { file: string; parse: ParserName };
  const result = await measureHere(file, parse);
  process.send(result, () => process.disconnect());
}
