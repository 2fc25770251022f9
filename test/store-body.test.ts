import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyStore, BodyStoreError, type BodyWriter } from '../src/store/body-store.js';
import { repoRoot } from './helpers/corpus.js';
import { listFiles } from './helpers/files.js';
import { useTempDirs } from './helpers/tmp.js';

const newRoot = useTempDirs('bodies');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const enc = new TextEncoder();


async function write(w: BodyWriter, body: Uint8Array, chunk = 1000) {
  for (let i = 0; i < body.length; i += chunk) {
    const p = w.push(body.subarray(i, i + chunk));
    if (p) await p;
  }
  return w.finish();
}

async function collect(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of it) parts.push(c);
  return Buffer.concat(parts);
}

const adsTxt = enc.encode('greenadexchange.com, XF7342, DIRECT, 5jyxf8k54\nredssp.com, 57013, RESELLER\n'.repeat(50));

describe('BodyStore: write and read back', () => {
  it('stores a small body under _bodies/<2 hex>/<sha256>.gz and reads it back verified', async () => {
    const root = newRoot();
    const store = BodyStore.forSnapshot(root);
    const r = await write(store.writer(), adsTxt, 333);
    expect(r).toEqual({ sha256: sha(adsTxt), bytes: adsTxt.length, stored: true, deduplicated: false });
    const rel = `${r.sha256.slice(0, 2)}/${r.sha256}.gz`;
    expect(store.dir).toBe(path.join(root, '_bodies'));
    expect(listFiles(root)).toEqual([`_bodies/${rel}`]);
    expect(gunzipSync(readFileSync(path.join(store.dir, rel)))).toEqual(Buffer.from(adsTxt));
    expect(await store.has(r.sha256)).toBe(true);
    expect(Buffer.from((await store.get(r.sha256))!)).toEqual(Buffer.from(adsTxt));
    expect(await collect(store.stream(r.sha256)!)).toEqual(Buffer.from(adsTxt));
  });

  it('a small stored file that inflates past 4 MiB (a gzip bomb, or just repetitive) is read back in chunks, not in one piece', async () => {
    const store = BodyStore.forSnapshot(newRoot());
    const big = enc.encode('a'.repeat(9 * 1024 * 1024));
    const r = await write(store.writer(), big, 1 << 20);
    expect(r.stored).toBe(true);
    const sizes: number[] = [];
    const chunks: Uint8Array[] = [];
    for await (const c of store.stream(r.sha256)!) {
      sizes.push(c.length);
      chunks.push(c);
    }
    expect(Buffer.concat(chunks).equals(Buffer.from(big))).toBe(true);
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1024 * 1024);
  });

  it('stores a body larger than memoryBytes by streaming it through a temporary file', async () => {
    const root = newRoot();
    const store = BodyStore.forSnapshot(root, { memoryBytes: 1024 });
    const body = randomBytes(300_000);
    const r = await write(store.writer(), body, 4096);
    expect(r.stored).toBe(true);
    expect(r.sha256).toBe(sha(body));
    expect(listFiles(store.dir)).toEqual([`${r.sha256.slice(0, 2)}/${r.sha256}.gz`]);
    expect(Buffer.from((await store.get(r.sha256))!)).toEqual(body);
  });

  it('stores the empty body', async () => {
    const store = BodyStore.forSnapshot(newRoot());
    const r = await store.writer().finish();
    expect(r).toMatchObject({ sha256: sha(new Uint8Array(0)), bytes: 0, stored: true });
    expect((await store.get(r.sha256))!.length).toBe(0);
  });

  it('answers null / false for a body it does not have, and for malformed hashes', async () => {
    const store = BodyStore.forSnapshot(newRoot());
    const missing = sha(enc.encode('nope'));
    expect(await store.has(missing)).toBe(false);
    expect(await store.get(missing)).toBeNull();
    expect(await store.open(missing)).toBeNull();
    expect(store.stream('../../etc/passwd')).toBeNull();
    expect(await store.get(missing.toUpperCase())).toBeNull();
    await expect(collect(store.stream(missing)!)).rejects.toMatchObject({ code: 'missing' });
  });

  it('push() returns a promise when the compressor is behind, and awaiting it is enough', async () => {
    const store = BodyStore.forSnapshot(newRoot(), { memoryBytes: 0 });
    const w = store.writer();
    const big = randomBytes(4 * 1024 * 1024);
    let waited = 0;
    for (let i = 0; i < 4; i++) {
      const p = w.push(big.subarray(i * 1024 * 1024, (i + 1) * 1024 * 1024));
      if (p) {
        waited++;
        await p;
      }
    }
    expect(waited).toBeGreaterThan(0);
    expect((await w.finish()).sha256).toBe(sha(big));
  });
});

describe('BodyStore: dedup and concurrency', () => {
  it('a second copy of the same bytes is dropped (deduplicated), leaving one file', async () => {
    const store = BodyStore.forSnapshot(newRoot(), { memoryBytes: 100 });
    const a = await write(store.writer(), adsTxt, 50);
    const b = await write(store.writer(), adsTxt, 7000);
    expect(a.deduplicated).toBe(false);
    expect(b).toEqual({ ...a, deduplicated: true });
    expect(listFiles(store.dir)).toEqual([`${a.sha256.slice(0, 2)}/${a.sha256}.gz`]);
  });

  it('hundreds of concurrent writers of a few bodies leave exactly one verified file per body', async () => {
    const store = BodyStore.forSnapshot(newRoot(), { memoryBytes: 2048 });
    const bodies = [adsTxt, randomBytes(10_000), randomBytes(100)];
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => write(store.writer(), bodies[i % 3]!, 512)));
    expect(results.every((r) => r.stored)).toBe(true);
    expect(new Set(results.map((r) => r.sha256))).toEqual(new Set(bodies.map(sha)));
    expect(listFiles(store.dir).sort()).toEqual(bodies.map((b) => `${sha(b).slice(0, 2)}/${sha(b)}.gz`).sort());
    for (const b of bodies) expect(Buffer.from((await store.get(sha(b)))!)).toEqual(Buffer.from(b));
  });
});

describe('BodyStore: abort, crash leftovers, cap', () => {
  it('abort() leaves nothing, before or after the body spilled to a temporary file', async () => {
    const store = BodyStore.forSnapshot(newRoot(), { memoryBytes: 1000 });
    const small = store.writer();
    small.push(adsTxt.subarray(0, 500));
    await small.abort();
    const spilled = store.writer();
    for (let i = 0; i < 20; i++) await spilled.push(randomBytes(1000));
    expect(listFiles(store.dir).filter((f) => f.startsWith('.tmp/'))).toHaveLength(1);
    await spilled.abort();
    await spilled.abort(); // idempotent
    expect(listFiles(store.dir)).toEqual([]);
    expect(() => spilled.push(adsTxt)).toThrow(/aborted/);
    await expect(spilled.finish()).rejects.toThrow(/aborted/);
  });

  it('temporary files left by a killed run are never taken for bodies, and sweepTemporary removes old ones', async () => {
    const root = newRoot();
    const store = BodyStore.forSnapshot(root);
    const h = sha(adsTxt);
    // What a SIGKILL mid-write leaves: a complete-looking gzip under a temporary name.
    mkdirSync(path.join(store.dir, '.tmp'), { recursive: true });
    const old = path.join(store.dir, '.tmp', `999-dead-1.tmp`);
    const fresh = path.join(store.dir, '.tmp', `999-dead-2.tmp`);
    writeFileSync(old, gzipSync(adsTxt));
    writeFileSync(fresh, gzipSync(adsTxt).subarray(0, 10));
    const past = new Date(Date.now() - 2 * 3600_000);
    utimesSync(old, past, past);
    expect(await store.has(h)).toBe(false);
    expect(await store.get(h)).toBeNull();
    expect(await store.sweepTemporary()).toEqual([old]);
    expect(listFiles(store.dir)).toEqual(['.tmp/999-dead-2.tmp']);
    // Writing the real body still works beside the leftover.
    expect((await write(store.writer(), adsTxt)).stored).toBe(true);
    expect(await store.has(h)).toBe(true);
  });

  it('a damaged body file is reported as corrupt, never returned as the body', async () => {
    const store = BodyStore.forSnapshot(newRoot());
    const r = await write(store.writer(), adsTxt);
    writeFileSync(store.pathOf(r.sha256), gzipSync(enc.encode('something else')));
    await expect(store.get(r.sha256)).rejects.toBeInstanceOf(BodyStoreError);
    await expect(store.get(r.sha256)).rejects.toMatchObject({ code: 'corrupt' });
    await expect(collect(store.stream(r.sha256)!)).rejects.toMatchObject({ code: 'corrupt' });
    writeFileSync(store.pathOf(r.sha256), 'not gzip');
    await expect(store.get(r.sha256)).rejects.toMatchObject({ code: 'corrupt' });
  });

  it.each([
    ['in memory', 1 << 20],
    ['spilled to a temporary file', 100],
  ])('a body over maxBytes is hashed but not stored (%s)', async (_label, memoryBytes) => {
    const store = BodyStore.forSnapshot(newRoot(), { maxBytes: 1000, memoryBytes });
    const atCap = randomBytes(1000);
    expect((await write(store.writer(), atCap, 300)).stored).toBe(true);
    const over = randomBytes(1500);
    const r = await write(store.writer(), over, 300);
    expect(r).toEqual({ sha256: sha(over), bytes: 1500, stored: false, deduplicated: false });
    expect(listFiles(store.dir)).toEqual([`${sha(atCap).slice(0, 2)}/${sha(atCap)}.gz`]);
  });

  it('rejects invalid options at construction', () => {
    expect(() => BodyStore.forSnapshot(newRoot(), { level: 0 })).toThrow(/level/);
    expect(() => BodyStore.forSnapshot(newRoot(), { maxBytes: -1 })).toThrow(/maxBytes/);
  });
});

// Runs in a child with --expose-gc so RSS reflects live memory, not uncollected garbage.
const RSS_SCRIPT = `
const { BodyStore } = await import(process.argv[1]);
const { createHash, randomBytes } = await import('node:crypto');
const MB = 1024 * 1024;
const rss = () => { globalThis.gc(); return process.memoryUsage().rss; };
const store = BodyStore.forSnapshot(process.argv[2], { maxBytes: 32 * MB });
const w = store.writer();
const h = createHash('sha256');
const base = rss();
let peak = 0;
for (let i = 0; i < 320; i++) {
  const c = randomBytes(64 * 1024); // incompressible: the worst case for the compressed copy
  h.update(c);
  const p = w.push(c);
  if (p) await p;
  if (i % 16 === 15) peak = Math.max(peak, rss() - base);
}
const r = await w.finish();
peak = Math.max(peak, rss() - base);
const baseRead = rss();
let readPeak = 0, n = 0;
const h2 = createHash('sha256');
for await (const c of store.stream(r.sha256)) {
  h2.update(c);
  if (++n % 16 === 0) readPeak = Math.max(readPeak, rss() - baseRead);
}
process.stdout.write(JSON.stringify({ bytes: r.bytes, stored: r.stored, hashOk: r.sha256 === h.digest('hex'),
  streamedOk: h2.digest('hex') === r.sha256, writeGrowthMb: peak / MB, readGrowthMb: readPeak / MB }));
`;

describe('BodyStore: a 20 MiB body with bounded memory', () => {
  it('streams in and out with RSS growth far below the body size (child process with --expose-gc)', () => {
    const module = path.join(repoRoot, 'src/store/body-store.ts');
    const res = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', RSS_SCRIPT, module, newRoot()], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
    expect(res.stderr).toBe('');
    const out = JSON.parse(res.stdout) as { bytes: number; stored: boolean; hashOk: boolean; streamedOk: boolean; writeGrowthMb: number; readGrowthMb: number };
    expect(out).toMatchObject({ bytes: 20 * 1024 * 1024, stored: true, hashOk: true, streamedOk: true });
    // Buffering the body would hold ≥ 20 MiB (plus its compressed copy).
    expect(out.writeGrowthMb).toBeLessThan(10);
    expect(out.readGrowthMb).toBeLessThan(10);
  });
});
