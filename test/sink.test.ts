import { DUCKDB_TYPE } from './helpers/snapshot-rows.js';
import { listFiles } from './helpers/files.js';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tableNames, tables, type Column, type Row, type TableName } from '../schemas/tables.js';
import { openSnapshotWriter, writeRunManifest } from '../src/sink/index.js';
import { useTempDirs } from './helpers/tmp.js';

let db: DuckDBInstance;
let con: DuckDBConnection;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
});
afterAll(() => {
  con?.closeSync();
});

const newDir = useTempDirs('sink');
const sql = (p: string) => `'${p.replace(/'/g, "''")}'`;
async function query(q: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(q)).getRowObjectsJson() as Record<string, unknown>[];
}



const T0 = new Date(Date.UTC(2026, 10, 22, 13, 45, 6, 789));
/** Row i of a table, built from its schema: unicode strings, int64 beyond 2^53, nulls in every nullable column on odd rows. */
function sampleRow(table: TableName, i: number): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of tables[table].columns as readonly Column[]) {
    if (c.nullable !== false && i % 2 === 1) {
      row[c.name] = null;
      continue;
    }
    switch (c.type) {
      case 'string':
        row[c.name] = c.dict ? `k${i % 3}` : `${c.name}-${i}-münchen-✓-🙂`;
        break;
      case 'int32':
        row[c.name] = i === 0 ? -2147483648 : i * 7;
        break;
      case 'int64':
        row[c.name] = i === 0 ? 9007199254740993n : i * 1000;
        break;
      case 'bool':
        row[c.name] = i % 4 === 0;
        break;
      case 'double':
        row[c.name] = i + 0.25;
        break;
      case 'timestamp':
        row[c.name] = new Date(T0.getTime() + i * 1000);
        break;
      case 'string[]':
        row[c.name] = i % 4 === 0 ? [] : [`https://a/${i}`, 'https://ü.example/'];
        break;
    }
  }
  return row;
}

/** What DuckDB's JSON row objects give back for a sample value. */
function expectedJson(c: Column, v: unknown): unknown {
  if (v === null) return null;
  if (c.type === 'int64') return String(v);
  if (c.type === 'timestamp') return `${(v as Date).toISOString().replace('T', ' ').replace('Z', '')}+00`;
  return v;
}

describe('snapshot writer: every table round-trips through DuckDB', () => {
  const dir = newDir();
  const ROWS = 6;

  beforeAll(async () => {
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-11-22', runId: 'run-a', rowGroupRows: 4 });
    for (const t of tableNames) for (let i = 0; i < ROWS; i++) {
      const p = w.write(t, sampleRow(t, i) as Row<typeof t>);
      if (p) await p;
    }
    const result = await w.commit();
    expect(result.parts).toHaveLength(tableNames.length);
    expect(result.rows.ads_records).toBe(ROWS);
    expect(result.tables.targets).toEqual({ rows: ROWS, parts: ['targets/snapshot_date=2026-11-22/part-00001.parquet'] });
  });

  it('lays parts out as DIR/<table>/snapshot_date=D/part-00001.parquet and nothing else', () => {
    expect(listFiles(dir)).toEqual(tableNames.map((t) => path.join(t, 'snapshot_date=2026-11-22', 'part-00001.parquet')).sort());
  });

  for (const t of tableNames) {
    it(`${t}: column types (DESCRIBE) and exact values, nulls, lists, unicode, int64, timestamps`, async () => {
      const file = path.join(dir, t, 'snapshot_date=2026-11-22', 'part-00001.parquet');
      const cols = tables[t].columns as readonly Column[];
      const described = await query(`DESCRIBE SELECT * FROM read_parquet(${sql(file)}, hive_partitioning = false)`);
      expect(described.map((d) => [d.column_name, d.column_type])).toEqual(cols.map((c) => [c.name, DUCKDB_TYPE[c.type]]));
      const rows = await query(`SELECT * FROM read_parquet(${sql(file)}, hive_partitioning = false)`);
      const expected = Array.from({ length: ROWS }, (_, i) => {
        const r = sampleRow(t, i);
        return Object.fromEntries(cols.map((c) => [c.name, expectedJson(c, r[c.name])]));
      });
      expect(rows).toEqual(expected);
    });
  }

  it('required columns are REQUIRED, nullable ones OPTIONAL; timestamps are MICROS adjusted to UTC', async () => {
    const file = path.join(dir, 'fetches', 'snapshot_date=2026-11-22', 'part-00001.parquet');
    const schema = await query(`SELECT name, repetition_type, logical_type FROM parquet_schema(${sql(file)})`);
    const byName = new Map(schema.map((s) => [s.name, s]));
    expect(byName.get('url')!.repetition_type).toBe('REQUIRED');
    expect(byName.get('host')!.repetition_type).toBe('OPTIONAL');
    expect(String(byName.get('started_at')!.logical_type)).toMatch(/isAdjustedToUTC=1.*MICROS|MICROS.*isAdjustedToUTC=1/);
  });

  it('ZSTD pages, dictionary encoding for dict columns, min/max statistics, 4-row row groups', async () => {
    const file = path.join(dir, 'ads_records', 'snapshot_date=2026-11-22', 'part-00001.parquet');
    const meta = await query(`SELECT row_group_id, path_in_schema, compression, encodings, stats_min_value, stats_max_value FROM parquet_metadata(${sql(file)}) ORDER BY row_group_id, column_id`);
    expect(new Set(meta.map((m) => m.row_group_id))).toEqual(new Set(['0', '1']));
    expect(new Set(meta.map((m) => m.compression))).toEqual(new Set(['ZSTD']));
    const rg0 = new Map(meta.filter((m) => m.row_group_id === '0').map((m) => [m.path_in_schema, m]));
    expect(rg0.get('relationship')!.encodings).toMatch(/RLE_DICTIONARY/);
    expect(rg0.get('file_kind')!.encodings).toMatch(/RLE_DICTIONARY/);
    expect(rg0.get('line_no')).toMatchObject({ stats_min_value: '-2147483648', stats_max_value: '21' });
  });

  it('hive partitioning exposes snapshot_date to analysts', async () => {
    const rows = await query(`SELECT snapshot_date::VARCHAR AS d, count(*)::INTEGER AS n FROM read_parquet(${sql(path.join(dir, 'ads_records', '*', '*.parquet'))}, hive_partitioning = true) GROUP BY 1`);
    expect(rows).toEqual([{ d: '2026-11-22', n: ROWS }]);
  });

  it('part metadata names the run and the part sequence (for resume after SIGKILL)', async () => {
    const file = path.join(dir, 'targets', 'snapshot_date=2026-11-22', 'part-00001.parquet');
    const kv = await query(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sql(file)})`);
    expect(Object.fromEntries(kv.map((r) => [r.k, r.v]))).toMatchObject({ 'adsnap.run_id': 'run-a', 'adsnap.table': 'targets', 'adsnap.snapshot_date': '2026-11-22' });
  });
});

describe('snapshot writer: parts, flush, numbering, empty tables', () => {
  it('flush seals a part; a second run in the same partition takes the next free number; inline mode writes the same data', async () => {
    const dir = newDir();
    const row = (i: number): Row<'targets'> => ({ target: `t${i}.com`, target_kind: 'domain', rank: i, source: 'l.txt', input_line: i, input_text: `t${i}.com` });
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-01-02', runId: 'one', tables: ['targets'] });
    for (let i = 1; i <= 3; i++) w.write('targets', row(i));
    await w.flush();
    for (let i = 4; i <= 5; i++) w.write('targets', row(i));
    const r1 = await w.commit();
    expect(r1.parts.map((p) => [path.basename(p.file), p.rows, p.seq])).toEqual([['part-00001.parquet', 3, 1], ['part-00002.parquet', 2, 2]]);
    const w2 = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-01-02', runId: 'two', tables: ['targets'], worker: false });
    w2.write('targets', row(6));
    const r2 = await w2.commit();
    expect(r2.parts.map((p) => path.basename(p.file))).toEqual(['part-00003.parquet']);
    const rows = await query(`SELECT target, rank FROM read_parquet(${sql(path.join(dir, 'targets', '*', '*.parquet'))}) ORDER BY rank`);
    expect(rows.map((r) => r.target)).toEqual(['t1.com', 't2.com', 't3.com', 't4.com', 't5.com', 't6.com']);
  });

  it('a part is sealed once it holds partRows rows (rounded up to row groups), so no part grows with the run', async () => {
    const dir = newDir();
    const staging = newDir();
    const row = (i: number): Row<'targets'> => ({ target: `t${i}.com`, target_kind: 'domain', rank: i, source: 'l.txt', input_line: i, input_text: `t${i}.com` });
    // 25 is rounded up to 30 (three 10-row groups); batches of 5 rows reach it exactly.
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-01-03', runId: 'roll', tables: ['targets'], rowGroupRows: 10, batchRows: 5, partRows: 25, stagingDir: staging });
    for (let i = 1; i <= 70; i++) await w.write('targets', row(i));
    // A checkpoint lists the parts sealed on the way as well as the one it seals itself.
    const staged = await w.checkpoint();
    expect(staged.map((p) => p.rows)).toEqual([30, 30, 10]);
    for (let i = 71; i <= 75; i++) await w.write('targets', row(i));
    const r = await w.commit();
    expect(r.parts.map((p) => p.rows)).toEqual([30, 30, 10, 5]);
    const groups = await query(`SELECT file_name, count(*)::INTEGER AS n FROM parquet_metadata(${sql(path.join(dir, 'targets', '*', '*.parquet'))}) GROUP BY ALL ORDER BY file_name`);
    expect(groups.map((g) => g.n)).toEqual([3 * 6, 3 * 6, 6, 6]); // row groups × 6 columns
    const rows = await query(`SELECT rank FROM read_parquet(${sql(path.join(dir, 'targets', '*', '*.parquet'))}) ORDER BY rank`);
    expect(rows.map((x) => x.rank)).toEqual(Array.from({ length: 75 }, (_, i) => i + 1));
  });

  it('a part that cannot be sealed on the way fails the writer instead of going missing', async () => {
    const dir = newDir();
    const staging = path.join(newDir(), 'later');
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-01-03', runId: 'rollfail', tables: ['targets'], rowGroupRows: 10, batchRows: 5, partRows: 10, stagingDir: staging, worker: false });
    const row = (i: number): Row<'targets'> => ({ target: `t${i}.com`, target_kind: 'domain', rank: i, source: null, input_line: null, input_text: null });
    // The staging directory does not exist yet, so moving the rolled part there fails…
    for (let i = 1; i <= 10; i++) await w.write('targets', row(i));
    await vi.waitFor(() => expect(() => w.write('targets', row(11))).toThrow(/ENOENT/));
    // …and the writer stays failed even once the directory is back: the part's rows are not silently dropped.
    mkdirSync(staging);
    await expect(w.commit()).rejects.toThrow(/ENOENT/);
    await w.abort();
    expect(listFiles(dir).filter((f) => f.endsWith('.parquet'))).toEqual([]);
  });

  it('a table with no rows still gets an empty, readable part', async () => {
    const dir = newDir();
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-01-02', runId: 'e', tables: ['hops', 'sellers'], worker: false });
    const r = await w.commit();
    expect(r.rows).toEqual({ hops: 0, sellers: 0 });
    const n = await query(`SELECT count(*)::INTEGER AS n FROM read_parquet(${sql(path.join(dir, 'hops', '*', '*.parquet'))}, hive_partitioning = true)`);
    expect(n).toEqual([{ n: 0 }]);
  });

  it('rejects bad rows and options at the edge', async () => {
    const dir = newDir();
    await expect(openSnapshotWriter({ outDir: dir, snapshotDate: '2026-02-30', runId: 'x' })).rejects.toThrow(TypeError);
    await expect(openSnapshotWriter({ outDir: dir, snapshotDate: '2026-02-03', runId: '../x' })).rejects.toThrow(TypeError);
    await expect(openSnapshotWriter({ outDir: dir, snapshotDate: '2026-02-03', runId: 'x', rowGroupRows: 0 })).rejects.toThrow(TypeError);
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-02-03', runId: 'x', tables: ['fetches'], worker: false });
    expect(() => w.write('fetches', { url: null } as unknown as Row<'fetches'>)).toThrow(/fetches\.url is required/);
    expect(() => w.write('fetches', { url: 'u', started_at: 'yesterday' } as unknown as Row<'fetches'>)).toThrow(/valid Date/);
    expect(() => w.write('targets', {} as Row<'targets'>)).toThrow(/not written/);
    await w.abort();
  });
});

describe('snapshot writer: abort and backpressure', () => {
  it('abort leaves nothing visible, including parts sealed earlier by flush', async () => {
    const dir = newDir();
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-03-04', runId: 'ab', tables: ['targets', 'ads_records'], rowGroupRows: 100 });
    for (let i = 0; i < 50; i++) w.write('targets', { target: `x${i}.com`, target_kind: 'domain', rank: i, source: null, input_line: null, input_text: null });
    await w.flush();
    expect(listFiles(dir).filter((f) => f.endsWith('.parquet'))).toHaveLength(1);
    for (let i = 0; i < 1000; i++) w.write('ads_records', { subject: 's', file_kind: 'ads.txt', line_no: i, ad_system_domain: 'a', seller_account_id: 'b', relationship: 'DIRECT', cert_authority_id: null, extension: null });
    await w.abort();
    expect(listFiles(dir)).toEqual([]);
    expect(() => w.write('targets', { target: 'y.com', target_kind: 'domain', rank: 1, source: null, input_line: null, input_text: null })).toThrow(/aborted/);
  });

  it('abort({ keepCommitted: true }) keeps sealed parts (checkpointed resume) but drops the open ones', async () => {
    const dir = newDir();
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-03-04', runId: 'keep', tables: ['targets'], worker: false });
    w.write('targets', { target: 'a.com', target_kind: 'domain', rank: 1, source: null, input_line: null, input_text: null });
    await w.flush();
    w.write('targets', { target: 'b.com', target_kind: 'domain', rank: 2, source: null, input_line: null, input_text: null });
    await w.abort({ keepCommitted: true });
    expect(listFiles(dir)).toEqual([path.join('targets', 'snapshot_date=2026-03-04', 'part-00001.parquet')]);
  });

  it('a slow encoder makes write() return a promise, and pending rows stay bounded', async () => {
    const dir = newDir();
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-03-04', runId: 'slow', tables: ['ads_records'], rowGroupRows: 1000, batchRows: 250, highWaterRows: 2000, slowRowGroupMs: 40 });
    let promises = 0;
    for (let i = 0; i < 12_000; i++) {
      const p = w.write('ads_records', { subject: `s${i}`, file_kind: 'ads.txt', line_no: i, ad_system_domain: 'a.com', seller_account_id: `${i}`, relationship: 'DIRECT', cert_authority_id: null, extension: null });
      if (p) {
        promises++;
        await p;
      }
    }
    const s = w.stats();
    expect(promises).toBeGreaterThan(0);
    expect(s.waits).toBe(promises);
    expect(s.maxPendingRows).toBeLessThanOrEqual(2000 + 250);
    const r = await w.commit();
    expect(r.rows.ads_records).toBe(12_000);
  });

  it('a caller that ignores backpressure gets a promise once the high-water mark is passed', async () => {
    const dir = newDir();
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-03-04', runId: 'hw', tables: ['targets'], rowGroupRows: 100, batchRows: 50, highWaterRows: 200 });
    const results = Array.from({ length: 400 }, (_, i) => w.write('targets', { target: `t${i}.com`, target_kind: 'domain', rank: i, source: null, input_line: null, input_text: null }));
    expect(results.slice(0, 200).every((r) => r === undefined)).toBe(true);
    expect(results[300]).toBeInstanceOf(Promise);
    await Promise.all(results);
    await w.commit();
  });
});

describe('snapshot writer: encoder failure', () => {
  it('an encoding error fails commit() and later writes; abort() then leaves nothing', async () => {
    const dir = newDir();
    const w = await openSnapshotWriter({ outDir: dir, snapshotDate: '2026-05-06', runId: 'bad', tables: ['fetches'] });
    w.write('fetches', { url: 'https://a/', host: 5 } as unknown as Row<'fetches'>);
    await expect(w.commit()).rejects.toThrow(/parquet encoder: .*Uint8Array/);
    expect(() => w.write('fetches', { url: 'https://b/' } as Row<'fetches'>)).toThrow(/parquet encoder/);
    await w.abort();
    expect(listFiles(dir)).toEqual([]);
  });
});

describe('run manifest', () => {
  it('is written atomically as DIR/_runs/<run id>.json', async () => {
    const dir = newDir();
    const p = await writeRunManifest(dir, 'run-7', { run_id: 'run-7', counts: { big: 2n ** 60n } });
    expect(p).toBe(path.join(dir, '_runs', 'run-7.json'));
    expect(JSON.parse(readFileSync(p, 'utf8'))).toEqual({ run_id: 'run-7', counts: { big: '1152921504606846976' } });
    expect(readdirSync(path.join(dir, '_runs'))).toEqual(['run-7.json']);
    await expect(writeRunManifest(dir, 'a/b', {})).rejects.toThrow(TypeError);
  });
});
