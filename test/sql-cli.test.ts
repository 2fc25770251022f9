import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { scanSql } from '../src/cli/commands/sql.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * `adsnap sql ROOT… [-c SQL]`: the real binary over real snapshots of the simulated web (two
 * nights in two roots, and a copy of the first written "by an older adsnap" without `sellers`),
 * every output compared with what DuckDB says directly through openSnapshotDb.
 */
const tempDir = useTempDirs('sql');
const DATE_A = '2026-11-22';
const DATE_B = '2026-11-23';
let web: Simweb;
let rootA: string;
let rootB: string;
let rootOld: string;
let db: Awaited<ReturnType<typeof openSnapshotDb>>;

const sql = (args: string[], input?: string) => runCli(['sql', ...args], input === undefined ? {} : { input });
const day = (d: unknown) => (d as Date).toISOString().slice(0, 10);

beforeAll(async () => {
  web = await startSimweb({ hosts: 30, apps: 0, hostile: false });
  const tmp = tempDir();
  const list = path.join(tmp, 'domains.txt');
  writeFileSync(list, [...web.domains()].join('\n') + '\n');
  rootA = path.join(tmp, 'a');
  rootB = path.join(tmp, 'b');
  for (const [out, date] of [[rootA, DATE_A], [rootB, DATE_B]] as const) {
    const r = await runCli(['crawl', '--domains', list, '--out', out, '--snapshot-date', date, '--progress', 'none', ...web.connectArgs]);
    expect(r.code, r.stderr).toBe(0);
  }
  // A root from "an older adsnap": no sellers/ folder, and its manifest does not name the table.
  rootOld = path.join(tmp, 'old');
  cpSync(rootA, rootOld, { recursive: true });
  rmSync(path.join(rootOld, 'sellers'), { recursive: true });
  for (const f of readdirSync(path.join(rootOld, '_runs')).filter((f) => f.endsWith('.json'))) {
    const p = path.join(rootOld, '_runs', f);
    const manifest = JSON.parse(readFileSync(p, 'utf8')) as { tables: Record<string, unknown> };
    delete manifest.tables.sellers;
    writeFileSync(p, JSON.stringify(manifest, null, 2));
  }
  db = await openSnapshotDb(rootA);
}, 120_000);

afterAll(async () => {
  db?.close();
  await web?.close();
});

describe('adsnap sql with a query', () => {
  const QUERY = 'SELECT file_kind, count(*) AS n FROM files GROUP BY 1 ORDER BY 1';
  let expected: { file_kind: string; n: number }[];
  beforeAll(async () => {
    expected = (await db.rows(QUERY)) as { file_kind: string; n: number }[];
    // No app list: no app-ads.txt. Every ad system is asked for its buyers.json too.
    expect(expected.map((r) => r.file_kind)).toEqual(['ads.txt', 'buyers.json', 'robots.txt', 'sellers.json']);
  });

  it('json: one array, counts as numbers, equal to DuckDB directly', async () => {
    const r = await sql([rootA, '--format', 'json', '-c', QUERY]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expected);
    expect(r.stdout).toBe('[' + expected.map((e) => JSON.stringify(e)).join(',\n') + ']\n');
  });

  it('ndjson: one object per line', async () => {
    const r = await sql([rootA, '--format', 'ndjson', '--query', QUERY]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(expected.map((e) => JSON.stringify(e) + '\n').join(''));
  });

  it('csv: RFC 4180 with a header row', async () => {
    const r = await sql([rootA, '--format', 'csv', '-c', QUERY]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(['file_kind,n', ...expected.map((e) => `${e.file_kind},${e.n}`)].map((l) => l + '\r\n').join(''));
  });

  it('table (the default): aligned columns, numbers right-aligned, a row count', async () => {
    const r = await sql([rootA, '-c', QUERY]);
    expect(r.code, r.stderr).toBe(0);
    const w0 = Math.max('file_kind'.length, ...expected.map((e) => e.file_kind.length));
    const w1 = Math.max(1, ...expected.map((e) => String(e.n).length));
    const lines = [
      `${'file_kind'.padEnd(w0)} | n`,
      `${'-'.repeat(w0)}-+-${'-'.repeat(w1)}`,
      ...expected.map((e) => `${e.file_kind.padEnd(w0)} | ${String(e.n).padStart(w1)}`),
      `(${expected.length} rows)`,
    ];
    expect(r.stdout).toBe(lines.join('\n') + '\n');
  });

  it('the query as the last argument when it is not a directory', async () => {
    const [total] = await db.rows('SELECT count(*) AS n FROM files');
    const r = await sql([rootA, '--format', 'csv', 'SELECT count(*) AS n FROM files']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`n\r\n${total!.n}\r\n`);
  });

  it('values: NULL, lists, BIGINT beyond 2^53, dates, timestamps, quotes', async () => {
    const q = `SELECT NULL::VARCHAR AS nothing, ['a', 'b,c'] AS list, 9007199254740993::BIGINT AS big, 42::BIGINT AS small,
      DATE '2026-11-22' AS d, TIMESTAMPTZ '2026-11-22 01:02:03.5+00' AS ts, 'say "hi", ok' AS s, '' AS empty, true AS yes`;
    const json = await sql([rootA, '--format', 'json', '-c', q]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe(
      '[{"nothing":null,"list":["a","b,c"],"big":"9007199254740993","small":42,"d":"2026-11-22","ts":"2026-11-22T01:02:03.500Z","s":"say \\"hi\\", ok","empty":"","yes":true}]\n',
    );
    const csv = await sql([rootA, '--format', 'csv', '-c', q]);
    expect(csv.stdout).toBe('nothing,list,big,small,d,ts,s,empty,yes\r\n,"[""a"",""b,c""]",9007199254740993,42,2026-11-22,2026-11-22T01:02:03.500Z,"say ""hi"", ok","",true\r\n');
    const table = await sql([rootA, '-c', 'SELECT NULL::INTEGER AS n, NULL::VARCHAR AS s, [1, 2] AS l']);
    expect(table.stdout).toBe('n    | s    | l\n-----+------+------\nNULL | NULL | [1,2]\n(1 row)\n');
  });

  it('a table column read back: timestamps ISO (UTC), lists as arrays, as DuckDB has them', async () => {
    const q = "SELECT url, started_at, redirects FROM fetches WHERE len(redirects) > 0 ORDER BY url, started_at LIMIT 3";
    const direct = await db.rows(q);
    expect(direct.length).toBe(3);
    const r = await sql([rootA, '--format', 'json', '-c', q]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(direct.map((d) => ({ ...d, started_at: (d.started_at as Date).toISOString() })));
  });

  it('two roots read as one: the union of both nights', async () => {
    const q = 'SELECT snapshot_date, count(*) AS n FROM files GROUP BY 1 ORDER BY 1';
    const dbB = await openSnapshotDb(rootB);
    const both = await openSnapshotDb([rootA, rootB]);
    try {
      const [a] = await db.rows(q);
      const [b] = await dbB.rows(q);
      const expectedRows = [{ snapshot_date: DATE_A, n: a!.n }, { snapshot_date: DATE_B, n: b!.n }];
      expect((await both.rows(q)).map((r) => ({ ...r, snapshot_date: day(r.snapshot_date) }))).toEqual(expectedRows);
      for (const args of [[rootA, rootB, '--format', 'json', '-c', q], [rootA, rootB, '--format', 'json', q]]) {
        const r = await sql(args);
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual(expectedRows);
      }
      // A derived view over both roots: adoption has one row per listed domain and night.
      const r = await sql([rootA, rootB, '--format', 'csv', '-c', 'SELECT snapshot_date, count(*) AS n FROM adoption GROUP BY 1 ORDER BY 1']);
      expect(r.stdout).toBe(`snapshot_date,n\r\n${DATE_A},30\r\n${DATE_B},30\r\n`);
    } finally {
      dbB.close();
      both.close();
    }
  });
});

describe('adsnap sql failures', () => {
  it('a SQL error: the message on stderr, exit 1', async () => {
    const r = await sql([rootA, '-c', 'SELECT * FROM no_such_table']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe('adsnap sql: Catalog Error: Table with name no_such_table does not exist!');
    const p = await sql([rootA, '-c', 'SELEC 1']);
    expect(p.code).toBe(1);
    expect(p.stderr.split('\n')[0]).toBe('adsnap sql: Parser Error: syntax error at or near "SELEC"');
  });

  it('a root whose first run has not completed: exit 1 naming the root; no snapshot root at all: exit 2', async () => {
    const started = tempDir();
    // A started run (its staging area, or a _runs folder) with no manifest yet is no complete snapshot.
    mkdirSync(path.join(started, '_runs'));
    const r = await sql([started, '-c', 'SELECT 1']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`adsnap sql: no complete snapshot under ${started} (no run manifest in ${path.join(started, '_runs')})\n`);
    const missing = path.join(started, 'missing');
    const m = await sql([rootA, missing, '-c', 'SELECT 1']);
    expect([m.code, m.stderr]).toEqual([2, `adsnap sql: ${missing}: no such directory (a snapshot root is the --out directory of \`adsnap crawl\`)\n`]);
    const empty = tempDir();
    expect(await sql([empty, '-c', 'SELECT 1'])).toMatchObject({ code: 2, stderr: `adsnap sql: ${empty} is an empty directory, not a snapshot root (a snapshot root is the --out directory of \`adsnap crawl\`)\n` });
    await expect(openSnapshotDb([rootA, started])).rejects.toThrow(`no complete snapshot under ${started} (no run manifest in ${path.join(started, '_runs')})`);
  });

  it('bad usage exits 2', async () => {
    expect((await sql([rootA, '--format', 'xml', '-c', 'SELECT 1'])).code).toBe(2);
    expect((await sql([])).code).toBe(2);
    expect((await sql([rootA, '-c', ' '])).code).toBe(2);
  });
});

describe('adsnap sql without a query', () => {
  it('no terminal: runs the script on stdin and prints the last result', async () => {
    const [total] = await db.rows('SELECT count(*) AS n FROM files');
    const script = "CREATE TEMP TABLE kinds AS SELECT file_kind, count(*) AS n FROM files GROUP BY 1;\n-- a comment; with a semicolon\nSELECT sum(n) AS total,\n  ';' AS semi\nFROM kinds;\n";
    const r = await sql([rootA, '--format', 'csv'], script);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`total,semi\r\n${total!.n},;\r\n`);
    const bad = await sql([rootA], 'SELECT 1;\nSELECT * FROM nope;\nSELECT 2;\n');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.split('\n')[0]).toBe('adsnap sql: Catalog Error: Table with name nope does not exist!');
    const none = await sql([rootA], '-- nothing\n');
    expect([none.code, none.stdout, none.stderr]).toEqual([0, '', '']);
  });

  it('the prompt (forced with -i): statements over several lines, dot commands, errors go on', async () => {
    const views = (await db.rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'VIEW' ORDER BY 1")).map((r) => r.table_name);
    expect(views).toContain('record_changes');
    const input = '.views\nSELECT count(*) AS n\n  FROM targets;\nSELECT * FROM nope;\nSELECT 1 AS a; SELECT 2 AS b;\n.quit\nSELECT 3;\n';
    const r = await sql([rootA, '-i'], input);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'adsnap> ' + views.join('\n') + '\n' +
      'adsnap>    ...> n\n--\n30\n(1 row)\n' +
      'adsnap> ' +
      'adsnap> a\n-\n1\n(1 row)\nb\n-\n2\n(1 row)\n' +
      'adsnap> \n',
    );
    expect(r.stderr.split('\n')[0]).toBe('Catalog Error: Table with name nope does not exist!');
  });
});

describe('a root written before a table existed', () => {
  it('the missing table is an empty view with its columns; the derived views still work', async () => {
    const describeSellers = 'SELECT column_name, column_type FROM (DESCRIBE sellers)';
    const r = await sql([rootOld, '--format', 'json', '-c', describeSellers]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(await db.rows(describeSellers));
    const [records] = await db.rows('SELECT count(*) AS n FROM ads_records');
    const m = await sql([rootOld, '--format', 'json', '-c', 'SELECT (SELECT count(*) FROM sellers) AS sellers, count(*) AS n, count(*) FILTER (WHERE seller_found) AS found FROM seller_match_all']);
    expect(m.code, m.stderr).toBe(0);
    expect(JSON.parse(m.stdout)).toEqual([{ sellers: 0, n: records!.n, found: 0 }]);
  });

  it('read with a newer root, the table comes from the root that has it', async () => {
    const [sellers] = await db.rows('SELECT count(*) AS n FROM sellers');
    const [files] = await db.rows('SELECT count(*) AS n FROM files');
    const r = await sql([rootOld, rootA, '--format', 'csv', '-c', 'SELECT (SELECT count(*) FROM sellers) AS sellers, (SELECT count(*) FROM files) AS files']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`sellers,files\r\n${sellers!.n},${2 * (files!.n as number)}\r\n`);
  });
});

describe('statement ends', () => {
  it('a ; ends a statement only outside strings and comments', () => {
    expect(scanSql('SELECT 1;')).toEqual({ significant: true, complete: true });
    expect(scanSql('SELECT 1;  -- done')).toEqual({ significant: true, complete: true });
    expect(scanSql("SELECT ';")).toEqual({ significant: true, complete: false });
    expect(scanSql("SELECT 'it''s;'")).toEqual({ significant: true, complete: false });
    expect(scanSql("SELECT 'it''s;';")).toEqual({ significant: true, complete: true });
    expect(scanSql('SELECT 1 /* ; */')).toEqual({ significant: true, complete: false });
    expect(scanSql('SELECT 1; /* open')).toEqual({ significant: true, complete: false });
    expect(scanSql('SELECT $$;$$')).toEqual({ significant: true, complete: false });
    expect(scanSql('-- only a comment;')).toEqual({ significant: false, complete: false });
  });
});
