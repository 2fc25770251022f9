import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactStaged } from '../src/sink/compact.js';
import type { StagedPart } from '../src/sink/writer-options.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('compact');

/** `n` staged parts of `table` under `dir`, `rows` rows each from `select` (given the part's number as `p`), in no order. */
async function stage(dir: string, table: string, n: number, rows: number, select: (p: number) => string): Promise<StagedPart[]> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const parts: StagedPart[] = [];
  try {
    for (let p = 0; p < n; p++) {
      const file = `${table}-${p}.parquet.staged`;
      await con.run(`COPY (${select(p)} ORDER BY random()) TO '${path.join(dir, file)}' (FORMAT parquet)`);
      parts.push({ table: table as StagedPart['table'], file, rows, bytes: 0 });
    }
  } finally {
    con.closeSync();
    db.closeSync();
  }
  return parts;
}

/** Each output part's rows in file order, and whether the parts together are the staged rows (both ways). */
async function readBack(dir: string, staged: readonly StagedPart[], out: readonly StagedPart[], keys: string) {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    const list = (ps: readonly StagedPart[]) => `[${ps.map((p) => `'${path.join(dir, p.file)}'`).join(', ')}]`;
    const parts: { keys: string[]; rows: number }[] = [];
    for (const p of out) {
      const rows = (await con.runAndReadAll(`SELECT ${keys} AS k FROM read_parquet('${path.join(dir, p.file)}')`)).getRowObjectsJS();
      parts.push({ keys: rows.map((r) => JSON.stringify(r.k)), rows: rows.length });
    }
    const diff = (await con.runAndReadAll(`SELECT (SELECT count(*) FROM (SELECT * FROM read_parquet(${list(staged)}) EXCEPT ALL SELECT * FROM read_parquet(${list(out)}))) AS lost,
      (SELECT count(*) FROM (SELECT * FROM read_parquet(${list(out)}) EXCEPT ALL SELECT * FROM read_parquet(${list(staged)}))) AS added`)).getRowObjectsJS()[0]!;
    return { parts, lost: Number(diff.lost), added: Number(diff.added) };
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

describe('the compaction sorts a big table one range of its first key at a time', () => {
  it('a table over rowsPerSort rows becomes a part per range, in key order, every row kept once', async () => {
    const dir = tempDir();
    // 6 parts × 50 records of 60 subjects, several lines each, in random order.
    const staged = await stage(dir, 'ads_records', 6, 50, (p) =>
      `SELECT 's' || lpad(((i * 7 + ${p}) % 60)::VARCHAR, 2, '0') || '.example' AS subject, 'ads.txt' AS file_kind, ${p} * 100 + i AS line_no, 'x.com' AS ad_system_domain FROM range(50) t(i)`);
    const out = await compactStaged(staged, { stagingDir: dir, runId: 'r', snapshotDate: '2026-11-29', rowsPerSort: 100 });
    expect(out.length).toBeGreaterThan(1);
    expect(out.reduce((n, p) => n + p.rows, 0)).toBe(300);
    const back = await readBack(dir, staged, out, `[subject, file_kind, line_no::VARCHAR]`);
    expect([back.lost, back.added]).toEqual([0, 0]);
    expect(back.parts.map((p) => p.rows)).toEqual(out.map((p) => p.rows));
    // Read part after part, the rows are in (subject, file_kind, line_no) order: each part sorted,
    // and each part's subjects before the next part's.
    const all = back.parts.flatMap((p) => p.keys.map((k) => JSON.parse(k) as [string, string, string]));
    const sorted = [...all].sort((a, b) => (a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : Number(a[2]) - Number(b[2])));
    expect(all).toEqual(sorted);
    const subjectsOf = (i: number) => new Set(back.parts[i]!.keys.map((k) => (JSON.parse(k) as string[])[0]));
    for (let i = 1; i < out.length; i++) expect([...subjectsOf(i)].filter((s) => subjectsOf(i - 1).has(s))).toEqual([]);
  });

  it('rows whose key is NULL go to the last range, as they sort last', async () => {
    const dir = tempDir();
    const staged = await stage(dir, 'fetches', 4, 40, (p) =>
      `SELECT CASE WHEN i % 5 = 0 THEN NULL ELSE 'h' || lpad(((i + ${p} * 13) % 37)::VARCHAR, 2, '0') END AS subject, 'ads.txt' AS file_kind,
              'https://h' || (${p} * 40 + i)::VARCHAR || '/ads.txt' AS url FROM range(40) t(i)`);
    const out = await compactStaged(staged, { stagingDir: dir, runId: 'r', snapshotDate: '2026-11-29', rowsPerSort: 50 });
    expect(out.length).toBeGreaterThan(1);
    const back = await readBack(dir, staged, out, 'subject');
    expect([back.lost, back.added]).toEqual([0, 0]);
    // In order, NULLs last: 8 of each part's 40 (i % 5 = 0), all in the last part.
    const keys = back.parts.flatMap((p) => p.keys);
    const named = keys.filter((k) => k !== 'null');
    expect(keys).toEqual([...[...named].sort(), ...Array<string>(32).fill('null')]);
    expect(back.parts.at(-1)!.keys.filter((k) => k === 'null')).toHaveLength(32);
  });

  it('a table within rowsPerSort stays one part', async () => {
    const dir = tempDir();
    const staged = await stage(dir, 'ads_records', 3, 20, (p) => `SELECT 's' || (i % 7)::VARCHAR AS subject, 'ads.txt' AS file_kind, ${p} * 100 + i AS line_no FROM range(20) t(i)`);
    const out = await compactStaged(staged, { stagingDir: dir, runId: 'r', snapshotDate: '2026-11-29', rowsPerSort: 60 });
    expect(out.map((p) => [p.file, p.rows])).toEqual([['ads_records-compact.parquet.staged', 60]]);
  });

  it('wide rows within rowsPerSort are sorted in ranges of bytesPerSort (their uncompressed Parquet size)', async () => {
    const dir = tempDir();
    // 4 parts × 100 fetches with 1 KB of distinct text each: about 400 KB uncompressed, 400 rows.
    const staged = await stage(dir, 'fetches', 4, 100, (p) =>
      `SELECT 'h' || lpad(((i * 3 + ${p}) % 90)::VARCHAR, 2, '0') AS subject, 'ads.txt' AS file_kind,
              'https://h' || (${p} * 100 + i)::VARCHAR || '/' || repeat(md5((${p} * 100 + i)::VARCHAR), 32) AS url FROM range(100) t(i)`);
    const whole = await compactStaged(staged, { stagingDir: dir, runId: 'r', snapshotDate: '2026-11-29', rowsPerSort: 1000 });
    expect(whole).toHaveLength(1);
    const out = await compactStaged(staged, { stagingDir: dir, runId: 'r', snapshotDate: '2026-11-29', rowsPerSort: 1000, bytesPerSort: 100_000 });
    expect(out.length).toBeGreaterThanOrEqual(4);
    expect(out.reduce((n, p) => n + p.rows, 0)).toBe(400);
    const back = await readBack(dir, staged, out, 'subject');
    expect([back.lost, back.added]).toEqual([0, 0]);
    const keys = back.parts.flatMap((p) => p.keys);
    expect(keys).toEqual([...keys].sort());
  });
  it('a table of more parts than partsPerRead is concatenated first (in rounds), every row kept once, in order; the concatenations go', async () => {
    const dir = tempDir();
    const staged = await stage(dir, 'ads_records', 7, 30, (p) =>
      `SELECT 's' || lpad(((i * 11 + ${p}) % 40)::VARCHAR, 2, '0') AS subject, 'ads.txt' AS file_kind, ${p} * 100 + i AS line_no FROM range(30) t(i)`);
    const out = await compactStaged(staged, { stagingDir: dir, runId: 'r', snapshotDate: '2026-11-29', rowsPerSort: 100, partsPerRead: 2 });
    expect(out.reduce((n, p) => n + p.rows, 0)).toBe(210);
    const back = await readBack(dir, staged, out, `[subject, line_no::VARCHAR]`);
    expect([back.lost, back.added]).toEqual([0, 0]);
    const keys = back.parts.flatMap((p) => p.keys.map((k) => JSON.parse(k) as [string, string]));
    expect(keys).toEqual([...keys].sort((a, b) => (a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : Number(a[1]) - Number(b[1]))));
    expect(readdirSync(dir).filter((f) => f.includes('concat'))).toEqual([]);
  });
});
