/**
 * ads.txt parse throughput: the whole adstxt/ + app-ads/ corpus, concatenated and
 * repeated to at least 50 MB, fed in 64 KiB chunks. The full parse (records, variables, issues
 * built and handed to a handler) is timed beside a bare LineSplitter pass over the same bytes
 * in the same run. Target: full parse ≥ 50 % of the bare line-split speed. The parser reads
 * canonical record lines straight from the decoded chunk (LineSplitter `fastLine`), so it does
 * not pay the bare pass's per-line slice; it still decodes every byte, finds every line end and
 * delivers every event.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { AdsTxtParser } from '../src/parse/adstxt/index.js';
import { LineSplitter } from '../src/text/line-splitter.js';
import { corpusDir, hasCorpus } from './corpus.js';

const TARGET_BYTES = 50 * 1024 * 1024;
const CHUNK = 64 * 1024;
const ROUNDS = 7;

async function loadCorpus(): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  for (const dir of ['adstxt', 'app-ads']) {
    for (const f of (await readdir(path.join(corpusDir, dir))).sort()) {
      const b = await readFile(path.join(corpusDir, dir, f));
      // UTF-16 files would be noise in a UTF-8 stream; everything else goes in as served.
      if ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff)) continue;
      parts.push(b, Buffer.from('\n'));
    }
  }
  const one = Buffer.concat(parts);
  const copies = Math.ceil(TARGET_BYTES / one.length);
  return Buffer.concat(Array.from({ length: copies }, () => one));
}

function chunksOf(buf: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < buf.length; i += CHUNK) out.push(buf.subarray(i, i + CHUNK));
  return out;
}

/** Process CPU time in ms: steadier than wall time on a shared 2-core machine. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function timeSplit(chunks: Uint8Array[]): { ms: number; cpu: number; lines: number } {
  let n = 0;
  const c0 = cpuMs();
  const t0 = performance.now();
  const s = new LineSplitter(() => {
    n++;
  });
  for (const c of chunks) s.push(c);
  s.end();
  return { ms: performance.now() - t0, cpu: cpuMs() - c0, lines: n };
}

function timeParse(chunks: Uint8Array[]): { ms: number; cpu: number; lines: number; records: number; variables: number; issues: number } {
  let records = 0;
  let variables = 0;
  let issues = 0;
  const c0 = cpuMs();
  const t0 = performance.now();
  const p = new AdsTxtParser(
    {
      onRecord: () => {
        records++;
      },
      onVariable: () => {
        variables++;
      },
      onIssue: () => {
        issues++;
      },
    },
    { fileKind: 'app-ads.txt' },
  );
  for (const c of chunks) p.push(c);
  const sum = p.end();
  return { ms: performance.now() - t0, cpu: cpuMs() - c0, lines: sum.lines, records, variables, issues };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function run(): Promise<void> {
  if (!hasCorpus) {
    console.log('corpus not found (set ADSNAP_CORPUS); skipped');
    return;
  }
  const buf = await loadCorpus();
  const chunks = chunksOf(buf);
  const mb = buf.length / 1e6;
  // Warm up both paths so the JIT has compiled them before timing.
  timeSplit(chunks.slice(0, 160));
  timeParse(chunks.slice(0, 160));
  const split: number[] = [];
  const parse: number[] = [];
  const splitCpu: number[] = [];
  const parseCpu: number[] = [];
  let lines = 0;
  let last = timeParse(chunks.slice(0, 1));
  // Interleaved rounds, so machine load affects both passes alike.
  for (let r = 0; r < ROUNDS; r++) {
    const s = timeSplit(chunks);
    split.push(s.ms);
    splitCpu.push(s.cpu);
    lines = s.lines;
    last = timeParse(chunks);
    parse.push(last.ms);
    parseCpu.push(last.cpu);
  }
  (globalThis as { gc?: () => void }).gc?.();
  const heapMb = process.memoryUsage().heapUsed / 1e6;
  const sMs = median(split);
  const pMs = median(parse);
  const sCpu = median(splitCpu);
  const pCpu = median(parseCpu);
  console.log(`input: ${mb.toFixed(1)} MB, ${lines.toLocaleString('en')} lines, ${chunks.length} chunks of 64 KiB; median of ${ROUNDS} interleaved rounds`);
  console.log(`parse output: ${last.records.toLocaleString('en')} records, ${last.variables.toLocaleString('en')} variables, ${last.issues.toLocaleString('en')} issues; heap after: ${heapMb.toFixed(0)} MB\n`);
  console.log('| pass | wall (s) | MB/s | lines/s | speed vs line split (wall) | CPU (s) | speed vs line split (CPU) |');
  console.log('|---|---|---|---|---|---|---|');
  const row = (name: string, ms: number, cpu: number) =>
    console.log(
      `| ${name} | ${(ms / 1000).toFixed(2)} | ${(mb / (ms / 1000)).toFixed(0)} | ${Math.round(lines / (ms / 1000)).toLocaleString('en')} | ${((sMs / ms) * 100).toFixed(0)} % | ${(cpu / 1000).toFixed(2)} | ${((sCpu / cpu) * 100).toFixed(0)} % |`,
    );
  row('bare line split (LineSplitter)', sMs, sCpu);
  row('full ads.txt parse (AdsTxtParser)', pMs, pCpu);
  console.log(`\ntarget: full parse ≥ 50 % of line-split speed — wall ${((sMs / pMs) * 100).toFixed(0)} %, CPU ${((sCpu / pCpu) * 100).toFixed(0)} %`);
}
