/**
 * The report's setup (src/report/setup.ts): its values are bound as parameters, never spliced
 * into SQL, and the statements written into report.json's setup_sql set the same variables when
 * replayed; rank_bucket() and rank_top_n() follow the bounds and labels.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketLabels, setupStatements, setVariable, variableStatement, windowVariables } from '../src/report/setup.js';

const WINDOW = { from: '2026-11-01', to: '2026-11-30', firstNight: '2026-11-02', latestNight: '2026-11-29' };
let instance: DuckDBInstance;
let bound: DuckDBConnection;
let replayed: DuckDBConnection;

/** The setup's macros only (the temp tables need the snapshot views). */
const macros = setupStatements('SELECT 1').filter((s) => s.startsWith('CREATE OR REPLACE MACRO'));

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  bound = await instance.connect();
  replayed = await instance.connect();
});
afterAll(() => {
  bound.closeSync();
  replayed.closeSync();
  instance.closeSync();
});

async function rows(conn: DuckDBConnection, sql: string) {
  return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

describe('report setup', () => {
  it('binds its values, and report.json replays them to the same variables', async () => {
    const vars = windowVariables(WINDOW, [10_000, 1_000, 1_000_000, 100_000]);
    for (const v of vars) await setVariable(bound, v);
    for (const v of vars) await replayed.run(variableStatement(v));
    const read = `SELECT getvariable('report_from')::VARCHAR AS f, getvariable('report_to_night')::VARCHAR AS t,
      getvariable('report_rank_buckets') AS b, getvariable('report_rank_labels') AS l`;
    const want = [{ f: '2026-11-01', t: '2026-11-29', b: [1000, 10000, 100000, 1000000], l: ['1–1k', '1k–10k', '10k–100k', '100k–1M', 'beyond 1M'] }];
    expect(await rows(bound, read)).toEqual(want);
    expect(await rows(replayed, read)).toEqual(want);
  });

  it('a value with a quote is a value, not SQL, bound or replayed', async () => {
    await bound.run('CREATE TABLE kept AS SELECT 1 AS x');
    const v = { name: 'report_probe', type: 'VARCHAR' as const, value: "x' AS VARCHAR); DROP TABLE kept; SELECT CAST('" };
    await setVariable(bound, v);
    await replayed.run(variableStatement(v));
    for (const c of [bound, replayed]) expect(await rows(c, `SELECT getvariable('report_probe') AS p`)).toEqual([{ p: v.value }]);
    expect(await rows(bound, 'SELECT x FROM kept')).toEqual([{ x: 1 }]);
    await expect(setVariable(bound, { name: 'report_from', type: 'DATE', value: 'not a date' })).rejects.toThrow(/date/i);
  });

  it('rank_bucket() gives each rank its disjoint bucket, rank_top_n() the cumulative bounds', async () => {
    for (const m of macros) await bound.run(m);
    const got = await rows(bound, `SELECT r, rank_bucket(r) AS b FROM (SELECT unnest([NULL, 1, 1000, 1001, 10000, 10001, 1000000, 1000001]::INTEGER[]) AS r)`);
    expect(got.map((x) => x.b)).toEqual(['unranked', '1–1k', '1–1k', '1k–10k', '1k–10k', '10k–100k', '100k–1M', 'beyond 1M']);
    expect(await rows(bound, 'SELECT rank_top_n() AS t')).toEqual([{ t: [1000, 10000, 100000, 1000000] }]);
    // The labels are bucketLabels' (the page's legend), 'unranked' last.
    expect(bucketLabels([1000, 10000, 100000, 1000000]).at(-1)).toBe('unranked');
  });

  it('with no bucket, every ranked site is in one bucket', async () => {
    const c = await instance.connect();
    try {
      for (const v of windowVariables(WINDOW, [])) await setVariable(c, v);
      for (const m of macros) await c.run(m);
      expect(await rows(c, 'SELECT rank_bucket(5) AS a, rank_bucket(NULL) AS b, rank_top_n() AS t')).toEqual([{ a: 'ranked', b: 'unranked', t: [] }]);
    } finally {
      c.closeSync();
    }
  });
});
