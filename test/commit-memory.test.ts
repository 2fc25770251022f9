import { describe, expect, it } from 'vitest';
import { DUCKDB_ALLOCATOR_ENV, doubledDuckDbSize, oneDuckDbArena, withMemoryRetry } from '../src/util/duckdb-size.js';

const oom = () => new Error('Out of Memory Error: failed to allocate data of size 32.0 MiB (96.7 MiB/122.0 MiB used)');

describe("the commit's DuckDB memory bound never loses a night", () => {
  it('runs again under twice the limit while DuckDB runs out of memory', async () => {
    const seen: string[] = [];
    const told: string[] = [];
    const r = await withMemoryRetry(
      '128MB',
      async (limit) => {
        seen.push(limit);
        if (seen.length < 3) throw oom();
        return 'done';
      },
      (next) => told.push(next),
    );
    expect([r, seen, told]).toEqual(['done', ['128MB', '256MB', '512MB'], ['256MB', '512MB']]);
  });

  it('gives up after its tries, and at once on any other error', async () => {
    const seen: string[] = [];
    await expect(withMemoryRetry('1GB', async (l) => (seen.push(l), Promise.reject(oom())), () => {}, 2)).rejects.toThrow(/Out of Memory/);
    expect(seen).toEqual(['1GB', '2GB']);
    let calls = 0;
    await expect(withMemoryRetry('128MB', async () => (calls++, Promise.reject(new Error('IO Error: disk full'))), () => {})).rejects.toThrow(/disk full/);
    expect(calls).toBe(1);
  });

  it('doubles DuckDB sizes and leaves what it cannot read', () => {
    expect(['128MB', '1.5GB', '512MiB', 'lots'].map((s) => doubledDuckDbSize(s) ?? s)).toEqual(['256MB', '3GB', '1024MiB', 'lots']);
  });

  it("gives the crawl's DuckDB one allocator arena, unless the user set jemalloc's options (even to nothing)", () => {
    const env: NodeJS.ProcessEnv = {};
    oneDuckDbArena(env);
    expect(env[DUCKDB_ALLOCATOR_ENV]).toBe('narenas:1');
    const own: NodeJS.ProcessEnv = { [DUCKDB_ALLOCATOR_ENV]: 'dirty_decay_ms:0' };
    oneDuckDbArena(own);
    expect(own[DUCKDB_ALLOCATOR_ENV]).toBe('dirty_decay_ms:0');
    const none: NodeJS.ProcessEnv = { [DUCKDB_ALLOCATOR_ENV]: '' };
    oneDuckDbArena(none);
    expect(none[DUCKDB_ALLOCATOR_ENV]).toBe('');
  });
});
