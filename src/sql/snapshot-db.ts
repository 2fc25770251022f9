import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { packageRoot } from '../util/package-root.js';
import { isDirectory } from '../util/directory.js';
import { isCalendarDate } from '../util/calendar-date.js';
import { DUCKDB_BASE_CONFIG } from '../util/duckdb-size.js';
import { visible } from '../text/visible.js';
import { percentText } from '../text/percent.js';
import { headlineLines, readHeadline } from './headline.js';
import { aroundTableViews, nightPartsMacroSql, standInSql, viewSql, VIEW_SOURCES } from './table-views.js';
import { useDerived, type DerivedNights } from './derived.js';

/**
 * Opens DuckDB on one snapshot directory, or several read as one, with the shipped views
 * (sql/views.sql) loaded — the same starting point an analyst has — and returns the connection.
 * The figure views read the nights' current derived sets (derived.ts) unless `derived` is false.
 *
 * Every root must hold at least one complete run (a manifest in ROOT/_runs), else this throws an
 * Error naming the root. A table with no parts in a root (a root written by an adsnap version
 * before that table existed) is read from the other roots only, or is an empty view with the
 * table's columns when no root has it, so that the derived views still work.
 *
 * `night` (YYYY-MM-DD, or several): the table views read those nights' folders only, and every
 * view over them sees those nights alone (the derivation of one night, and of its changes since the
 * nights before: what it binds and reads does not grow with the nights the root holds).
 *
 * `only`: of sql/views.sql's statements after the table views, only the macros and views of
 * these names and those their SQL names in turn (and none of the derived sets): for a command that
 * reads the tables through a few macros (`adsnap verify`). DuckDB binds a view's query when it
 * creates it: the figure views took 0.7 of the 0.8 s an open took on a 100k-site night.
 */
export async function openSnapshotDb(roots: string | readonly string[], o: { allowEmpty?: boolean; derived?: boolean; night?: string | readonly string[]; only?: readonly string[] } = {}) {
  // A root named twice (or by two spellings of one path) is read once: rows are never doubled.
  const list = typeof roots === 'string' ? [roots] : [...new Map(roots.map((r) => [path.resolve(r), r])).values()];
  if (list.length === 0) throw new Error('no snapshot root given');
  const nights = o.night === undefined ? undefined : [...new Set(typeof o.night === 'string' ? [o.night] : o.night)];
  for (const n of nights ?? []) if (!isCalendarDate(n)) throw new Error(`not a night: ${JSON.stringify(n)}`);
  // allowEmpty: an existing directory with no complete run yet opens with empty views (the report says so).
  for (const root of list) if (!(o.allowEmpty && isDirectory(root))) assertSnapshotRoot(root);
  // A private folder for what DuckDB spills past its memory limit. Its default for an in-memory
  // database is `.tmp` in the working directory, shared by every adsnap command started there:
  // two at once (a report while a derivation runs) read each other's spill files (an IO error, or worse).
  const spill = mkdtempSync(path.join(tmpdir(), 'adsnap-duckdb-'));
  const removeSpill = () => rmSync(spill, { recursive: true, force: true });
  const instance = await DuckDBInstance.create(':memory:', { ...DUCKDB_BASE_CONFIG, temp_directory: spill });
  const db = await instance.connect();
  const more: DuckDBConnection[] = [];
  let derived: DerivedNights = { nights: [], underived: [], changesUnderived: [] };
  try {
    if (typeof roots === 'string') await db.run('SET VARIABLE adsnap_root = $1', [roots], [VARCHAR]);
    else await db.run('SET VARIABLE adsnap_roots = $1', [listValue(list)], [LIST(VARCHAR)]);
    // The shipped data tables the views read (ad_system_companies), wherever the package is installed.
    await db.run('SET VARIABLE adsnap_data = $1', [path.join(packageRoot(), 'data')], [VARCHAR]);
    await loadViews(db, list, nights, o.only);
    // The figure views read the nights' derived sets where current (derived.ts); derived: false, only the definitions.
    if (o.derived !== false && o.only === undefined) derived = await useDerived(db, list);
  } catch (err) {
    db.closeSync();
    instance.closeSync();
    removeSpill();
    throw err;
  }
  return {
    /** The DuckDB connection, for callers that want typed results or streaming. */
    connection: db,
    /**
     * Another connection to the same database: its attached databases, views and macros, not the
     * first connection's TEMP objects. Statements on two connections run at once; close() closes it.
     */
    async connect(): Promise<DuckDBConnection> {
      const c = await instance.connect();
      more.push(c);
      return c;
    },
    /** Stops the statement each connection is running (it fails with DuckDB's interrupt error): a command told to stop. */
    interrupt(): void {
      for (const c of [db, ...more]) c.interrupt();
    },
    /** The nights whose figure views read a current derived set, and those read from the definitions. */
    derived,
    /**
     * Binds the table views to `nights`' folders instead (a database opened with `night` and
     * `derived: false`, as a derivation opens it): every view over them then reads those nights
     * alone, as a database opened with them would, without binding views.sql's other views again
     * (DuckDB binds a view's query where it is read, so they follow).
     */
    async readNights(next: readonly string[]): Promise<void> {
      if (nights === undefined || o.derived !== false) throw new Error('readNights needs a database opened with night and derived: false');
      const wanted = [...new Set(next)];
      for (const n of wanted) if (!isCalendarDate(n)) throw new Error(`not a night: ${JSON.stringify(n)}`);
      for (const sql of await tableViewStatements(db, list, wanted)) await db.run(sql);
    },
    /** `params`: values bound to `$1`, `$2`, … (never spliced into the SQL text). */
    async rows(sql: string, params?: (string | number | boolean | null)[]): Promise<Record<string, unknown>[]> {
      const reader = params ? await db.runAndReadAll(sql, params) : await db.runAndReadAll(sql);
      // Counts come back as BIGINT; summaries want plain numbers.
      return (reader.getRowObjectsJS() as Record<string, unknown>[]).map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
      );
    },
    close() {
      for (const c of more) c.closeSync();
      db.closeSync();
      instance.closeSync();
      removeSpill();
    },
  };
}

/** A snapshot opened by openSnapshotDb. */
export type SnapshotDb = Awaited<ReturnType<typeof openSnapshotDb>>;

/** Throws unless ROOT holds at least one run manifest (ROOT/_runs/*.json): a complete run. */
function assertSnapshotRoot(root: string): void {
  let manifests: string[] = [];
  try {
    manifests = readdirSync(path.join(root, '_runs')).filter((f) => f.endsWith('.json'));
  } catch {
    // No _runs folder (or no root at all): said below.
  }
  if (manifests.length > 0) return;
  let why = '';
  try {
    if (!statSync(root).isDirectory()) why = ': not a directory';
  } catch {
    why = ': no such directory';
  }
  throw new Error(`no complete snapshot under ${root} (no run manifest in ${path.join(root, '_runs')})${why}`);
}

/**
 * Runs sql/views.sql, split into statements by DuckDB itself, with its table-views block as
 * src/sql/table-views.ts generates it (the checked-in block is the same text: test/table-views.test.ts).
 */
async function loadViews(db: DuckDBConnection, roots: readonly string[], nights: readonly string[] | undefined, only: readonly string[] | undefined): Promise<void> {
  const tableViews = await tableViewStatements(db, roots, nights);
  const { before, after } = aroundTableViews(await readFile(path.join(packageRoot(), 'sql', 'views.sql'), 'utf8'));
  await runScript(db, before);
  for (const sql of tableViews) await db.run(sql);
  await runScript(db, only === undefined ? after : await statementsFor(db, after, only));
}

/**
 * The statements of `script` (views.sql after its table views) that create `names` and what their
 * SQL names (outside comments), in the script's order. The file starts every statement on a line of
 * its own with `CREATE OR REPLACE MACRO name` or `CREATE OR REPLACE VIEW name`; each piece cut there
 * must be one statement to DuckDB's parser and the text before the first none, else the whole
 * script is returned (everything created: slower, never a missing macro). A name the script does
 * not create is an error.
 */
async function statementsFor(db: DuckDBConnection, script: string, names: readonly string[]): Promise<string> {
  const [head = '', ...pieces] = script.split(/^(?=CREATE OR REPLACE )/m);
  // DuckDB extracts no statement from comments alone but fails: the head with one statement after it.
  const count = (sql: string) => db.extractStatements(sql).then((x) => x.count, () => -1);
  if ((await count(`${head}\nSELECT 1;`)) !== 1) return script;
  const byName = new Map<string, string>();
  for (const piece of pieces) {
    const name = /^CREATE OR REPLACE (?:MACRO|VIEW) (\w+)/.exec(piece)?.[1];
    if (name === undefined || (await count(piece)) !== 1) return script;
    byName.set(name, piece);
  }
  const wanted = new Set<string>();
  const next = [...names];
  for (let name = next.pop(); name !== undefined; name = next.pop()) {
    if (wanted.has(name)) continue;
    const piece = byName.get(name);
    if (piece === undefined) throw new Error(`sql/views.sql creates no ${name} after its table views`);
    wanted.add(name);
    for (const [word] of piece.replace(/--[^\n]*/g, '').matchAll(/\w+/g)) if (byName.has(word)) next.push(word);
  }
  return [...byName].filter(([name]) => wanted.has(name)).map(([, piece]) => piece).join('');
}

/**
 * The table-views block's statements for `roots` (and `nights`' folders only, when given), with the
 * variable adsnap_missing set. A root that holds no part of a table (written by an adsnap version
 * before that table existed) or no manifest yet (allowEmpty) is left out of that table's reading
 * through adsnap_missing (views.sql's adsnap_table_roots). What no root holds gets its stand-in
 * instead of its view (an empty view with the table's columns, or a parts macro listing none),
 * chosen before anything runs: every failure is a real one and throws.
 */
async function tableViewStatements(db: DuckDBConnection, roots: readonly string[], nights?: readonly string[]): Promise<string[]> {
  const missing: Record<string, string[]> = {};
  const nowhere = new Set<string>();
  const held: Set<string>[] = [];
  const manifests: string[] = [];
  // With nights: per table, the night folders that hold a part (read_parquet fails on a glob that matches nothing).
  const folders = new Map<string, string[]>();
  for (const root of roots) {
    if (nights === undefined) {
      held.push(await heldByRoot(db, root));
      continue;
    }
    const has = new Set<string>();
    for (const night of nights) {
      for (const name of await heldByRoot(db, root, night)) {
        has.add(name);
        if (name !== '_runs') folders.set(name, [...(folders.get(name) ?? []), `${root.replace(/\/+$/, '')}/${name}/snapshot_date=${night}/*.parquet`]);
      }
    }
    // The nights' own manifests only (their snapshot_date), read here once.
    const mine = await nightManifests(root, new Set(nights));
    manifests.push(...mine);
    if (mine.length === 0) has.delete('_runs');
    held.push(has);
  }
  for (const name of VIEW_SOURCES) {
    const without = roots.filter((_, i) => !held[i]!.has(name)).map((r) => r.replace(/\/+$/, ''));
    if (without.length === roots.length) nowhere.add(name);
    else if (without.length > 0) missing[name] = without;
  }
  await db.run('SET VARIABLE adsnap_missing = CAST(CAST($1 AS JSON) AS MAP(VARCHAR, VARCHAR[]))', [JSON.stringify(missing)], [VARCHAR]);
  return VIEW_SOURCES.map((name) => {
    if (nowhere.has(name)) return standInSql(name);
    if (name === '_runs' && nights !== undefined) return nightPartsMacroSql(manifests);
    return viewSql(name, nights === undefined ? undefined : folders.get(name));
  });
}

async function runScript(db: DuckDBConnection, sql: string): Promise<void> {
  const script = await db.extractStatements(sql);
  for (let i = 0; i < script.count; i++) await (await script.prepare(i)).run();
}

/**
 * The run manifests of `root` whose snapshot_date is one of `nights`, spelled as the views' globs spell them
 * (ROOT/_runs/NAME.json, the root as given). Read here rather than through completedRuns
 * (run-manifests.ts), which also checks every part of every run: a cost that grows with the nights.
 */
async function nightManifests(root: string, nights: ReadonlySet<string>): Promise<string[]> {
  const dir = path.join(root, '_runs');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  const out: string[] = [];
  for (const name of names) {
    let date: unknown;
    try {
      date = (JSON.parse(await readFile(path.join(dir, name), 'utf8')) as { snapshot_date?: unknown }).snapshot_date;
    } catch {
      continue; // not a manifest a run finished writing: no parts of it are read
    }
    if (typeof date === 'string' && nights.has(date)) out.push(`${root.replace(/\/+$/, '')}/_runs/${name}`);
  }
  return out;
}

/** What a root holds (of `night` only, when given), listed once: '_runs' when it has a run manifest, and each table with at least one part. */
async function heldByRoot(db: DuckDBConnection, root: string, night?: string): Promise<Set<string>> {
  const base = root.replace(/\/+$/, '');
  const reader = await db.runAndReadAll(
    // The table is the third name from the end (TABLE/snapshot_date=D/part.parquet), whatever
    // spelling of the root the glob gives back (`a//b`, `./a`). No table's folder starts with `_`:
    // the root's own folders (_bodies: a 1M-site night's 256 folders of 1.2 M bodies) are not
    // listed, which took 4.4 of the 10.7 s `adsnap sql` needed to open such a root.
    `SELECT DISTINCT regexp_extract(file, '([^/]+)/[^/]+/[^/]+$', 1) AS name FROM glob($1 || '/[!_]*/' || $2 || '/*.parquet')
     UNION SELECT '_runs' FROM glob($1 || '/_runs/*.json')`,
    [base, night === undefined ? '*' : `snapshot_date=${night}`],
    [VARCHAR, VARCHAR],
  );
  return new Set(reader.getRowsJS().map((r) => String(r[0])));
}

/**
 * A short human summary of one snapshot: the headline figures (in the report's words,
 * src/sql/headline.ts), files by status, the ad systems named by most declaring sites, hops.
 * Every value is bound as a parameter.
 */
export async function summarizeSnapshot(outDir: string, snapshotDate: string): Promise<string> {
  const db = await openSnapshotDb(outDir);
  const night = [snapshotDate];
  try {
    const [listed] = await db.rows(
      `SELECT (SELECT count(*) FROM listed_sites WHERE snapshot_date = CAST($1 AS DATE)) AS sites,
              (SELECT count(*) FROM listed_apps WHERE snapshot_date = CAST($1 AS DATE)) AS apps`,
      night,
    );
    const out: string[] = [`Headline figures (${snapshotDate}; ${listed?.sites ?? 0} listed sites, ${listed?.apps ?? 0} listed apps; docs/reference/figures.md):`];
    out.push(...headlineLines(await readHeadline(db.connection, snapshotDate)));
    out.push('', 'files by kind and status:');
    for (const r of await db.rows(`SELECT file_kind, status, count(*) AS n FROM files WHERE snapshot_date = CAST($1 AS DATE) GROUP BY ALL ORDER BY file_kind, n DESC, status`, night)) {
      out.push(`  ${String(r.file_kind).padEnd(13)} ${String(r.status).padEnd(22)} ${r.n}`);
    }
    out.push('', 'top ad systems (declaring listed sites naming them in their root ads.txt; view ad_system_sites):');
    const top = await db.rows(
      `SELECT ad_system_domain, sites, sites_direct, site_share, records FROM ad_system_sites WHERE snapshot_date = CAST($1 AS DATE) ORDER BY sites DESC, records DESC, ad_system_domain LIMIT 8`,
      night,
    );
    for (const r of top) {
      const share = percentText(Number(r.site_share));
      // The ad system as the file wrote it: shown, never obeyed, on a terminal (text/visible.ts).
      out.push(`  ${visible(String(r.ad_system_domain)).padEnd(28)} ${String(r.sites).padStart(6)} sites (${share.padStart(6)}) ${String(r.sites_direct).padStart(6)} DIRECT ${String(r.records).padStart(8)} records`);
    }
    out.push('', 'hops:');
    for (const r of await db.rows(`SELECT kind, outcome, coalesce(reason, '') AS reason, count(*) AS n FROM hops WHERE snapshot_date = CAST($1 AS DATE) GROUP BY ALL ORDER BY kind, outcome, n DESC`, night)) {
      out.push(`  ${String(r.kind).padEnd(22)} ${String(r.outcome).padEnd(9)} ${String(r.reason).padEnd(16)} ${r.n}`);
    }
    return out.join('\n');
  } finally {
    db.close();
  }
}
