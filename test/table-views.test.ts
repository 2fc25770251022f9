/**
 * The table views of sql/views.sql are generated from schemas/tables.ts (src/sql/table-views.ts):
 * the checked-in block is what the generator gives, no table view is typed by hand elsewhere, and
 * openSnapshotDb gives a table no root holds an empty view with its columns, chosen beforehand
 * (no failure is caught and matched).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tables } from '../schemas/tables.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { aroundTableViews, standInSql, tableViewsSql, VIEW_SOURCES, viewSql, withTableViews } from '../src/sql/table-views.js';
import { sqlString } from '../src/util/sql-literal.js';
import { repoRoot } from './helpers/corpus.js';
import { useTempDirs } from './helpers/tmp.js';

const viewsSql = () => readFile(path.join(repoRoot, 'sql', 'views.sql'), 'utf8');
const tempDir = useTempDirs('table-views');

/**
 * A root holding one agents_catalogue part as an earlier version wrote it (no fetches_pages, no
 * controls), listed by its run manifest.
 */
async function oldCatalogueRoot(): Promise<string> {
  const root = tempDir();
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  const part = 'agents_catalogue/snapshot_date=2026-11-20/part-0.parquet';
  mkdirSync(path.join(root, path.dirname(part)), { recursive: true });
  await con.run(`COPY (SELECT 'GPTBot' AS user_agent, 'training' AS purpose) TO ${sqlString(path.join(root, part))} (FORMAT parquet)`);
  con.closeSync();
  mkdirSync(path.join(root, '_runs'));
  writeFileSync(path.join(root, '_runs', 'r1.json'), JSON.stringify({ tables: { agents_catalogue: { parts: [part] } } }));
  return root;
}

describe('the table views of sql/views.sql', () => {
  it('the block is what src/sql/table-views.ts generates (run `npm run docs` when it is not)', async () => {
    const views = await viewsSql();
    expect(aroundTableViews(views).block).toBe(tableViewsSql());
    expect(withTableViews(views)).toBe(views);
    // A stale block (a table added to schemas/tables.ts and not regenerated) is told apart.
    const stale = views.replace(viewSql('llms_txt') + '\n', '');
    expect(stale).not.toBe(views);
    expect(withTableViews(stale)).toBe(views);
  });

  it('every table has its view in the block, and none is typed by hand outside it', async () => {
    const { before, block, after } = aroundTableViews(await viewsSql());
    for (const name of Object.keys(tables)) {
      const create = new RegExp(`CREATE OR REPLACE VIEW ${name} AS`, 'g');
      expect(block.match(create)?.length, name).toBe(1);
      expect((before + after).match(create), name).toBeNull();
    }
    expect(VIEW_SOURCES).toEqual(['_runs', ...Object.keys(tables)]);
  });

  it('a table no root holds is an empty view with the schema columns, and the views built on it load', async () => {
    const root = tempDir();
    mkdirSync(path.join(root, '_runs'));
    writeFileSync(path.join(root, '_runs', 'r1.json'), JSON.stringify({ tables: {} }));
    const db = await openSnapshotDb(root);
    try {
      for (const name of ['sellers', 'buyers_files', 'llms_txt'] as const) {
        const cols = await db.rows(`SELECT column_name FROM (DESCRIBE ${name})`);
        expect(cols.map((c) => c.column_name)).toEqual([...tables[name].columns.map((c) => c.name), 'snapshot_date']);
        expect(await db.rows(`SELECT count(*) AS n FROM ${name}`)).toEqual([{ n: 0 }]);
      }
      // The derived views built on them load and answer (no rows).
      expect(await db.rows('SELECT count(*) AS n FROM file_owner_domains')).toEqual([{ n: 0 }]);
    } finally {
      db.close();
    }
  });

  it('a root written before a column existed reads it as NULL: the views on it load (older snapshots stay readable)', async () => {
    const root = await oldCatalogueRoot();
    const db = await openSnapshotDb(root);
    try {
      const cols = await db.rows('SELECT column_name FROM (DESCRIBE agents_catalogue)');
      expect(cols.map((c) => c.column_name)).toEqual([...tables.agents_catalogue.columns.map((c) => c.name), 'snapshot_date']);
      expect(await db.rows("SELECT user_agent, purpose, fetches_pages, strftime(snapshot_date, '%Y-%m-%d') AS night FROM agents_catalogue")).toEqual([
        { user_agent: 'GPTBot', purpose: 'training', fetches_pages: null, night: '2026-11-20' },
      ]);
      // site_ai_consent reads columns newer than this part (agents_catalogue.fetches_pages, fetches.crawler_price).
      expect(await db.rows('SELECT count(*) AS n FROM site_ai_consent')).toEqual([{ n: 0 }]);
    } finally {
      db.close();
    }
  });

  it('a root named with a doubled slash or a ./ reads the same parts (the tables a root holds are found whatever its spelling)', async () => {
    const root = await oldCatalogueRoot();
    const doubled = path.dirname(root) + '//' + path.basename(root);
    const dotted = './' + path.relative(process.cwd(), root);
    for (const spelling of [root, doubled, dotted, root + '/']) {
      const db = await openSnapshotDb(spelling);
      try {
        expect(await db.rows('SELECT user_agent FROM agents_catalogue'), spelling).toEqual([{ user_agent: 'GPTBot' }]);
      } finally {
        db.close();
      }
    }
  });

  it('each open snapshot spills to its own folder, removed on close (two commands in one directory never share `.tmp`), and returns freed memory from the allocator\'s background thread', async () => {
    const root = tempDir();
    mkdirSync(path.join(root, '_runs'));
    writeFileSync(path.join(root, '_runs', 'r1.json'), JSON.stringify({ tables: {} }));
    const a = await openSnapshotDb(root);
    const b = await openSnapshotDb(root);
    const spillOf = async (db: typeof a) => String((await db.rows(`SELECT current_setting('temp_directory') AS t`))[0]!.t);
    const [sa, sb] = [await spillOf(a), await spillOf(b)];
    expect(sa).not.toBe(sb);
    expect(path.isAbsolute(sa) && existsSync(sa)).toBe(true);
    expect((await a.rows(`SELECT current_setting('allocator_background_threads') AS on`))[0]!.on).toBe(true);
    a.close();
    b.close();
    expect(existsSync(sa) || existsSync(sb)).toBe(false);
  });

  it("opened for one night, the views read that night's folders and manifests only, and a table the night lacks is empty", async () => {
    const root = tempDir();
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:');
    const con = await instance.connect();
    // Two nights of targets; hops only on the first. The second night's manifest also lists a part
    // of a third night's folder: a one-night reader takes neither that part nor another night's manifest.
    const part = (t: string, night: string, n: number) => `${t}/snapshot_date=${night}/part-${n}.parquet`;
    const write = async (file: string, target: string) => {
      mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
      await con.run(`COPY (SELECT ${sqlString(target)} AS target, 'domain' AS target_kind) TO ${sqlString(path.join(root, file))} (FORMAT parquet)`);
    };
    await write(part('targets', '2026-11-20', 0), 'a.test');
    await write(part('hops', '2026-11-20', 0), 'x');
    await write(part('targets', '2026-11-21', 0), 'b.test');
    await write(part('targets', '2026-11-22', 0), 'c.test');
    con.closeSync();
    mkdirSync(path.join(root, '_runs'));
    const manifest = (night: string, t: Record<string, string[]>) =>
      JSON.stringify({ snapshot_date: night, tables: Object.fromEntries(Object.entries(t).map(([k, parts]) => [k, { parts }])) });
    writeFileSync(path.join(root, '_runs', 'n1.json'), manifest('2026-11-20', { targets: [part('targets', '2026-11-20', 0)], hops: [part('hops', '2026-11-20', 0)] }));
    writeFileSync(path.join(root, '_runs', 'n2.json'), manifest('2026-11-21', { targets: [part('targets', '2026-11-21', 0), part('targets', '2026-11-22', 0)] }));
    const targetsOf = async (o: { night?: string }) => {
      const db = await openSnapshotDb(root, o);
      try {
        return { targets: (await db.rows('SELECT target FROM targets ORDER BY 1')).map((r) => r.target), hops: (await db.rows('SELECT count(*) AS n FROM hops'))[0]!.n };
      } finally {
        db.close();
      }
    };
    expect(await targetsOf({})).toEqual({ targets: ['a.test', 'b.test', 'c.test'], hops: 1 });
    expect(await targetsOf({ night: '2026-11-20' })).toEqual({ targets: ['a.test'], hops: 1 });
    expect(await targetsOf({ night: '2026-11-21' })).toEqual({ targets: ['b.test'], hops: 0 });
    expect(await targetsOf({ night: '2026-11-23' })).toEqual({ targets: [], hops: 0 });
    await expect(openSnapshotDb(root, { night: "2026-11-20' OR true" })).rejects.toThrow(/not a night/);
  });

  it('opened with `only`, the views after the table views are those macros and what their SQL names, nothing else', async () => {
    const root = await oldCatalogueRoot();
    const created = async (o: { only?: readonly string[] }) => {
      const db = await openSnapshotDb(root, o);
      try {
        const rows = await db.rows(`SELECT function_name AS name FROM duckdb_functions() WHERE NOT internal AND function_type LIKE '%macro%'
          UNION SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1`);
        const files = await db.rows("SELECT count(*) AS n FROM adsnap_auth_files('2026-11-20')").catch((e: Error) => e.message);
        return { names: new Set(rows.map((r) => String(r.name))), files };
      } finally {
        db.close();
      }
    };
    const all = await created({});
    const some = await created({ only: ['adsnap_auth_files'] });
    // adsnap_auth_files reads adsnap_auth_files_in, which reads adsnap_in_range: all three, and the table views.
    for (const name of ['adsnap_auth_files', 'adsnap_auth_files_in', 'adsnap_in_range', 'files', 'ads_records', 'adsnap_host']) expect(some.names, name).toContain(name);
    for (const name of ['adsnap_auth_records', 'authorization_at', 'file_scopes', 'headline_figures']) {
      expect(all.names, name).toContain(name);
      expect(some.names, name).not.toContain(name);
    }
    expect([all.files, some.files]).toEqual([[{ n: 0 }], [{ n: 0 }]]);
    await expect(openSnapshotDb(root, { only: ['no_such_macro'] })).rejects.toThrow(/creates no no_such_macro/);
  });

  it('the stand-in of the manifests lists no part; an unknown name is an error, not a view', () => {
    expect(standInSql('_runs')).toContain('WHERE false');
    expect(() => viewSql('no_such_table')).toThrow(/no table "no_such_table"/);
    expect(() => standInSql('constructor')).toThrow(/no table/);
  });
});

describe('sqlString: the one SQL string literal', () => {
  it('doubles single quotes and leaves the rest', () => {
    expect(sqlString("it's")).toBe("'it''s'");
    expect(sqlString("''")).toBe("''''''");
    expect(sqlString('a\\b')).toBe("'a\\b'");
  });
});
