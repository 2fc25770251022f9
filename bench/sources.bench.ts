/**
 * Domain lists: lines/s and peak RSS reading a synthetic 1M-line list (plain, .gz, .zip) with
 * readDomainList (root-domain normalisation + dedup included), each in its own child process so
 * peak RSS is its own; the real corpus lists when present; and the memory of the dedup set
 * (CompactStringSet vs a JS Set<string>) for 1M roots.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readDomainList } from '../src/sources/domain-list.js';
import { CompactStringSet } from '../src/util/compact-string-set.js';
import { makeZip } from '../test/helpers/make-zip.js';
import { corpusDir, hasCorpus } from './corpus.js';

const LINES = 1_000_000;
const self = fileURLToPath(import.meta.url);

interface Result {
  lines: number;
  accepted: number;
  seconds: number;
  peakRssMb: number;
}

async function measure(file: string): Promise<Result> {
  const t0 = performance.now();
  const { targets, stats } = readDomainList(file);
  for await (const _ of targets);
  return { lines: stats.lines, accepted: stats.accepted, seconds: (performance.now() - t0) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024 };
}

function child(file: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', self, '--sources-bench-child', file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Result) : reject(new Error(`child exited ${code}`))));
  });
}

/** A Tranco-like list with the shapes real lists have: www. hosts, URLs, subdomains, some duplicates. */
function syntheticList(): string {
  const lines: string[] = [];
  for (let i = 1; i <= LINES; i++) {
    const name = `site${(i * 7919) % 900_000}`; // ~10% repeat: duplicates to fold
    const tld = ['com', 'net', 'org', 'co.uk', 'de', 'com.br'][i % 6];
    const host = i % 10 === 0 ? `www.${name}.${tld}` : i % 17 === 0 ? `cdn.${name}.${tld}` : `${name}.${tld}`;
    lines.push(i % 23 === 0 ? `${i},https://${host}/path` : `${i},${host}`);
  }
  return lines.join('\n') + '\n';
}

function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1e6;
}

function setMemory(): { rootSetMb: number; jsSetMb: number } {
  const base = heapMb();
  const js = new Set<string>();
  for (let i = 0; i < LINES; i++) js.add(`example-site-${i}.com`); // the set keeps its strings alive
  const jsSetMb = heapMb() - base;
  js.clear();
  const rs = new CompactStringSet();
  for (let i = 0; i < LINES; i++) rs.add(`example-site-${i}.com`);
  return { rootSetMb: rs.byteLength / 1e6, jsSetMb };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'adsnap-sources-bench-'));
  try {
    const text = syntheticList();
    const files: [string, string][] = [
      ['synthetic 1M, plain CSV', path.join(dir, 'list.csv')],
      ['synthetic 1M, .csv.gz', path.join(dir, 'list.csv.gz')],
      ['synthetic 1M, .zip (deflate)', path.join(dir, 'list.zip')],
    ];
    writeFileSync(files[0]![1], text);
    writeFileSync(files[1]![1], gzipSync(text));
    writeFileSync(files[2]![1], makeZip([{ name: 'list.csv', data: text }]));
    if (hasCorpus) {
      const lists = path.join(corpusDir, 'lists');
      for (const f of readdirSync(lists).filter((f) => /tranco|alexa|iab-adstxt|majestic/.test(f)).sort()) files.push([`corpus ${f}`, path.join(lists, f)]);
    }
    console.log('| input | lines | accepted | s | lines/s | peak RSS |');
    console.log('|---|---|---|---|---|---|');
    for (const [label, file] of files) {
      const r = await child(file);
      console.log(`| ${label} | ${r.lines.toLocaleString('en-US')} | ${r.accepted.toLocaleString('en-US')} | ${r.seconds.toFixed(2)} | ${Math.round(r.lines / r.seconds).toLocaleString('en-US')} | ${r.peakRssMb.toFixed(0)} MB |`);
    }
    const m = setMemory();
    console.log(`\nDedup set for 1M roots: CompactStringSet ${m.rootSetMb.toFixed(1)} MB vs JS Set<string> ${m.jsSetMb.toFixed(1)} MB (heap growth; needs --expose-gc)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const i = process.argv.indexOf('--sources-bench-child');
if (i >= 0) {
  console.log(JSON.stringify(await measure(process.argv[i + 1]!)));
  process.exit(0);
}
