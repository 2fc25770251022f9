import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zstd from '@bokuweb/zstd-wasm';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concatBytes, concatPlan } from '../src/sink/parquet-concat.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('parquet-concat');
let dir: string;
let db: DuckDBInstance;
let con: DuckDBConnection;

/** Rows `a` … `b` - 1 of every shape verify writes: integers, strings, NULLs, empty and NULL lists, structs, lists of structs, booleans. */
const rows = (a: number, b: number) => `SELECT i AS line_no, 'r' || i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE ['authorized', 'unauthorized', 'inconclusive'][i % 3 + 1] END AS verdict,
  CASE WHEN i % 3 = 0 THEN ['a', 'b'] WHEN i % 3 = 1 THEN [] END AS codes, {'k': i, 'v': 'q' || (i % 5)} AS s,
  CASE WHEN i % 5 <> 0 THEN [{'asi': 'x.com', 'sid': 's' || (i % 11), 'hp': 1}] END AS nodes, i % 2 = 0 AS b FROM range(${a}, ${b}) t(i)`;

async function duckdbPart(name: string, a: number, b: number, options = ''): Promise<string> {
  const file = path.join(dir, name);
  await con.run(`COPY (${rows(a, b)} ORDER BY line_no) TO '${file}' (FORMAT parquet, COMPRESSION zstd${options})`);
  return file;
}

async function joined(files: readonly string[], name: string): Promise<string> {
  const plan = await concatPlan(files);
  expect(plan).not.toBeNull();
  const out = path.join(dir, name);
  await pipeline(concatBytes(plan!), createWriteStream(out));
  return out;
}

async function scalar(sql: string): Promise<unknown> {
  return (await con.runAndReadAll(sql)).getRowsJS()[0]![0];
}

beforeAll(async () => {
  dir = tempDir();
  db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
  await zstd.init();
});
afterAll(() => {
  con.closeSync();
  db.closeSync();
});

describe('Parquet parts joined without decoding a page (sink/parquet-concat.ts)', () => {
  it('DuckDB reads the parts’ rows, in order, from the joined file, with every part’s row groups', async () => {
    // Part 0 has several row groups, part 1 a few rows; dictionary columns carry bloom filters.
    const parts = [await duckdbPart('p0.parquet', 0, 50_000, ', ROW_GROUP_SIZE 10000'), await duckdbPart('p1.parquet', 50_000, 50_003), await duckdbPart('p2.parquet', 50_003, 80_000)];
    const out = await joined(parts, 'joined.parquet');
    const file = `read_parquet('${out}')`;
    expect(await scalar(`SELECT count(*) FROM (SELECT * FROM ${file} EXCEPT ALL ${rows(0, 80_000)})`)).toBe(0n);
    expect(await scalar(`SELECT count(*) FROM (${rows(0, 80_000)} EXCEPT ALL SELECT * FROM ${file})`)).toBe(0n);
    expect(await scalar(`SELECT count(*) FILTER (WHERE line_no <> file_row_number) FROM read_parquet('${out}', file_row_number = true)`)).toBe(0n);
    const groups = async (f: string) => Number(await scalar(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata('${f}')`));
    expect(await groups(out)).toBe((await groups(parts[0]!)) + (await groups(parts[1]!)) + (await groups(parts[2]!)));
    expect(await groups(parts[0]!)).toBeGreaterThan(1);
    // Filters that read the statistics and bloom filters of a later part find its rows.
    expect(await scalar(`SELECT count(*) FROM ${file} WHERE id = 'r79999'`)).toBe(1n);
    expect(await scalar(`SELECT count(*) FROM ${file} WHERE line_no BETWEEN 50001 AND 50004`)).toBe(4n);
  });

  it('a second reader (hyparquet) reads the same rows at the moved offsets', async () => {
    const parts = [await duckdbPart('h0.parquet', 0, 300), await duckdbPart('h1.parquet', 300, 700)];
    const out = await joined(parts, 'h.parquet');
    const got = await parquetReadObjects({
      file: await asyncBufferFromFile(out),
      compressors: { ZSTD: (input: Uint8Array) => zstd.decompress(input) },
    });
    expect(got.map((r) => Number(r.line_no))).toEqual(Array.from({ length: 700 }, (_, i) => i));
    expect(got[650]).toMatchObject({ id: 'r650', verdict: 'inconclusive', s: { k: 650n, v: 'q0' }, b: true });
    expect([got[650]!.codes, got[650]!.nodes]).toEqual([undefined, undefined]);
    expect(got[601]).toMatchObject({ codes: [], nodes: [{ asi: 'x.com', sid: 's7', hp: 1 }] });
  });

  it('no plan (nothing written) for parts it cannot join: other columns, page indexes, a file that is not Parquet', async () => {
    const a = await duckdbPart('a.parquet', 0, 10);
    const other = path.join(dir, 'other.parquet');
    await con.run(`COPY (SELECT 1 AS line_no) TO '${other}' (FORMAT parquet)`);
    expect(await concatPlan([a, other])).toBeNull();
    // An offset index (hyparquet-writer's, for a column of several pages) holds page offsets of its own: not moved, so not joined.
    const indexed = path.join(dir, 'indexed.parquet');
    const data = Int32Array.from({ length: 5000 }, (_, i) => i);
    writeFileSync(indexed, new Uint8Array(parquetWriteBuffer({ columnData: [{ name: 'line_no', data, type: 'INT32', offsetIndex: true }], pageSize: 1024 })));
    expect(Number(await scalar(`SELECT count(*) FROM read_parquet('${indexed}')`))).toBe(5000);
    expect(await concatPlan([indexed, indexed])).toBeNull();
    const cut = path.join(dir, 'cut.parquet');
    writeFileSync(cut, readFileSync(a).subarray(0, 100));
    expect(await concatPlan([a, cut])).toBeNull();
    // The same files without the odd one join.
    expect(await concatPlan([a, a])).not.toBeNull();
  });
});
