/**
 * A process writing a snapshot and killed mid-way leaves no `*.parquet` part visible:
 * - SIGTERM: the process calls `abort()` (as the CLI does) and nothing at all is left;
 * - SIGKILL: no cleanup runs, yet only `.part-….parquet.tmp` files remain (no glob matches them),
 *   and `sweepTemporaryParts` removes them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sweepTemporaryParts } from '../src/sink/index.js';
import { repoRoot } from './helpers/corpus.js';
import { listFiles } from './helpers/files.js';
import { useTempDirs } from './helpers/tmp.js';

const newDir = useTempDirs('sig');


/** Starts a child that writes rows forever through a slow encoder and prints READY once a part file exists. */
function startWriter(outDir: string): { child: ChildProcess; ready: Promise<void>; exited: Promise<number | NodeJS.Signals | null> } {
  const sink = pathToFileURL(path.join(repoRoot, 'src', 'sink', 'index.ts')).href;
  const script = path.join(outDir, '..', `writer-${path.basename(outDir)}.mts`);
  writeFileSync(
    script,
    `import { openSnapshotWriter } from ${JSON.stringify(sink)};
const w = await openSnapshotWriter({ outDir: ${JSON.stringify(outDir)}, snapshotDate: '2026-11-22', runId: 'sig', tables: ['ads_records', 'targets'], rowGroupRows: 500, slowRowGroupMs: 20 });
let stopping = false;
process.on('SIGTERM', async () => { stopping = true; await w.abort(); process.exit(143); });
// One part sealed early, so abort must also remove a published part.
w.write('targets', { target: 'a.com', target_kind: 'domain', rank: 1, source: null, input_line: null, input_text: null });
await w.flush();
let announced = false;
for (let i = 0; !stopping; i++) {
  const p = w.write('ads_records', { subject: 's' + i, file_kind: 'ads.txt', line_no: i % 1000, ad_system_domain: 'a.com', seller_account_id: String(i), relationship: 'DIRECT', cert_authority_id: null, extension: null });
  if (p) await p;
  if (stopping) break; // write() throws once the writer is aborted
  if (!announced && i === 5000) { announced = true; console.log('READY'); }
}
`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('READY')) resolve();
    });
    child.on('exit', () => reject(new Error('writer exited before READY')));
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  return { child, ready, exited };
}

describe('killing a process that is writing a snapshot', () => {
  it('SIGTERM → abort(): no part and no temporary file remain', async () => {
    const outDir = path.join(newDir(), 'out');
    const { child, ready, exited } = startWriter(outDir);
    await ready;
    expect(listFiles(outDir).some((f) => f.endsWith('.parquet.tmp'))).toBe(true);
    expect(listFiles(outDir).some((f) => f.endsWith('.parquet'))).toBe(true); // the flushed targets part
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(listFiles(outDir)).toEqual([]);
  }, 30_000);

  it('SIGKILL: no *.parquet part of the unfinished table is visible; temporaries are swept', async () => {
    const outDir = path.join(newDir(), 'out');
    const { child, ready, exited } = startWriter(outDir);
    await ready;
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const files = listFiles(outDir);
    // Only the part sealed by flush() before the kill is visible (a checkpointed run resumes from it).
    expect(files.filter((f) => f.endsWith('.parquet'))).toEqual([path.join('targets', 'snapshot_date=2026-11-22', 'part-00001.parquet')]);
    const temps = files.filter((f) => f.endsWith('.parquet.tmp'));
    expect(temps.length).toBeGreaterThan(0);
    expect(temps.every((f) => /^\.part-sig-[a-z0-9]+-ads_records-/.test(path.basename(f)))).toBe(true);
    expect((await sweepTemporaryParts(outDir, 'sig')).length).toBe(temps.length);
    expect(listFiles(outDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 30_000);
});
