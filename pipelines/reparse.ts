import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Row, TableName } from '../schemas/tables.js';
import { DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS, isRobotsSemantics, type RobotsSemantics } from '../src/parse/robots/index.js';
import type { Obtained } from '../schemas/tables.js';
import { openSnapshotWriter, partitionDir, writeRunManifest } from '../src/sink/index.js';
import { publishPart } from '../src/sink/part-files.js';
import { BodyStore } from '../src/store/body-store.js';
import { buyersFileRow, sellersFileRow } from '../src/tables/rows.js';
import { version } from '../src/util/version.js';
import { emitRobots, parseAdsBody, parseRobotsBody, parseSellersBody, parseBuyersBody } from './body-parsers.js';
import { RowEmitter } from './context.js';
import { policyOf } from './robots-job.js';
import { completedRuns } from '../src/store/run-manifests.js';
import { isCalendarDate } from '../src/util/calendar-date.js';
import type { SnapshotDb } from '../src/sql/snapshot-db.js';
import { emitAgentRows, emitCatalogue, emitLicenses } from './robots-agents.js';
import { isConsentKind, parseConsentBody } from './consent-bodies.js';
import { adsContent, buyersContent, consentContent, robotsContent, sellersContent, withContent } from './file-row.js';
import { loadAgentsCatalogue } from '../src/resolve/agents-catalogue.js';
import { rebuildHomePage } from './page-head.js';

/**
 * `adsnap reparse` (docs/guide/nightly.md#reparse): rebuilds one snapshot's parsed tables from the bodies kept in
 * DIR/_bodies, with the current parsers, without fetching anything. What the crawl observed on
 * the network — `targets`, `fetches`, `hops`, `apps` — is copied as it was; everything parsed
 * from bodies — `files` counts and statuses, `ads_records`, `ads_variables`, `parse_issues`,
 * `robots_*`, `sellers` — is produced again. The result is written to another snapshot root.
 */
const COPIED: readonly TableName[] = ['targets', 'fetches', 'hops', 'apps'];
const REBUILT: readonly TableName[] = ['files', 'ads_records', 'ads_variables', 'parse_issues', 'robots_rules', 'robots_sitemaps', 'robots_managed_blocks', 'robots_verdicts', 'robots_agent_access', 'robots_usage_signals', 'agents_catalogue', 'sellers', 'sellers_files', 'buyers', 'buyers_files', 'robots_licenses', 'tdmrep_rules', 'rsl_licenses', 'llms_txt', 'page_heads', 'page_directives'];
/** How snapshots written before `files.obtained` existed said it, in `files.status`. */
const LEGACY_OBTAINED: Record<string, Obtained> = { cached: 'reused', not_modified: 'revalidated', carried_forward: 'carried_forward' };

export interface ReparseOptions {
  source: string;
  outDir: string;
  /** @default the latest snapshot date in `source` */
  snapshotDate?: string;
}

export interface ReparseResult {
  snapshotDate: string;
  runId: string;
  manifestPath: string;
  reparsed: number;
  withoutBody: number;
  tables: Record<string, { rows: number; parts: string[] }>;
}

export async function reparse(o: ReparseOptions): Promise<ReparseResult> {
  if (path.resolve(o.source) === path.resolve(o.outDir)) throw new Error('reparse writes a rebuilt snapshot to another --out directory');
  // DuckDB and the report's SQL are loaded here, not when the module is (the library export loads it).
  const { openSnapshotDb } = await import('../src/sql/snapshot-db.js');
  const db = await openSnapshotDb(o.source);
  try {
    const [latest] = await db.rows(`SELECT strftime(max(snapshot_date), '%Y-%m-%d') AS d FROM files`);
    if (o.snapshotDate !== undefined && !isCalendarDate(o.snapshotDate)) throw new TypeError(`snapshot date must be a calendar date YYYY-MM-DD, got ${JSON.stringify(o.snapshotDate)}`);
    const snapshotDate = o.snapshotDate ?? (latest?.d as string | null);
    if (!snapshotDate) throw new Error(`no snapshot in ${o.source}`);
    const runId = `reparse-${snapshotDate}-${randomUUID().slice(0, 8)}`;
    // The copied tables: exactly the parts the source's complete runs of that date list.
    const sourceRuns = (await completedRuns(o.source)).filter((r) => r.snapshotDate === snapshotDate);
    const copied: Record<string, { rows: number | null; parts: string[] }> = {};
    for (const t of COPIED) copied[t] = { rows: null, parts: await copyParts(o.outDir, t, snapshotDate, sourceRuns.flatMap((r) => r.parts[t] ?? [])) };

    const writer = await openSnapshotWriter({ outDir: o.outDir, snapshotDate, runId, tables: REBUILT });
    const out = new RowEmitter(writer);
    const bodies = BodyStore.forSnapshot(o.source);
    let reparsed = 0;
    let withoutBody = 0;
    try {
      const agents = await nightAgents(out, db, snapshotDate);
      const semantics = await nightSemantics(db, snapshotDate);
      const files = await db.rows(`SELECT * EXCLUDE (snapshot_date) FROM files WHERE snapshot_date = CAST($1 AS DATE) ORDER BY file_kind, subject`, [snapshotDate]);
      for (const f of files as unknown as Row<'files'>[]) {
        const stream = f.sha256 ? await bodies.open(f.sha256) : null;
        if (stream) reparsed++;
        else withoutBody++;
        out.emit('files', await rebuildFile(out, db, snapshotDate, f, stream, agents, semantics.get(f.subject) ?? 'rfc'));
        await out.settle();
      }
      const committed = await writer.commit();
      const manifestPath = await writeRunManifest(o.outDir, runId, {
        run_id: runId,
        snapshot_date: snapshotDate,
        adsnap_version: version,
        reparse_of: path.resolve(o.source),
        files_reparsed: reparsed,
        files_without_body: withoutBody,
        copied_tables: COPIED,
        tables: { ...copied, ...committed.tables },
        finished_at: new Date().toISOString(),
      });
      // The night's derived tables, from the rebuilt tables (src/report/derived.ts); the source's are not carried over.
      const { deriveNight } = await import('../src/report/derived.js');
      await deriveNight(o.outDir, snapshotDate).catch((err: Error) => process.stderr.write(`adsnap reparse: no derived tables for ${snapshotDate} (${err.message}); readers use the views' definitions until \`adsnap derive ${o.outDir}\` writes them\n`));
      return { snapshotDate, runId, manifestPath, reparsed, withoutBody, tables: committed.tables };
    } catch (err) {
      await writer.abort();
      throw err;
    }
  } finally {
    db.close();
  }
}

/**
 * The reading of robots.txt each host's verdicts followed that night (robots_verdicts.semantics,
 * from crawl --robots-semantics); empty for a snapshot written before the column ('rfc' then).
 */
async function nightSemantics(db: SnapshotDb, date: string): Promise<Map<string, RobotsSemantics>> {
  const columns = await db.rows(`SELECT column_name FROM (DESCRIBE robots_verdicts)`);
  if (!columns.some((c) => c.column_name === 'semantics')) return new Map();
  const rows = await db.rows(`SELECT host, max(semantics) AS semantics FROM robots_verdicts WHERE snapshot_date = CAST($1 AS DATE) AND semantics IS NOT NULL GROUP BY host`, [date]);
  const out = new Map<string, RobotsSemantics>();
  for (const r of rows) if (isRobotsSemantics(r.semantics)) out.set(r.host as string, r.semantics);
  return out;
}

/**
 * The agents catalogue the night used (its `agents_catalogue` rows, copied), so the rebuilt
 * `robots_agent_access` answers for the same agents; the shipped catalogue for a snapshot
 * written before the table existed.
 */
async function nightAgents(out: RowEmitter, db: SnapshotDb, date: string): Promise<string[]> {
  const rows = await db.rows(`SELECT * EXCLUDE (snapshot_date) FROM agents_catalogue WHERE snapshot_date = CAST($1 AS DATE) ORDER BY user_agent`, [date]);
  if (rows.length > 0) {
    for (const r of rows) out.emit('agents_catalogue', r as unknown as Row<'agents_catalogue'>);
    return rows.map((r) => r.user_agent as string);
  }
  const shipped = await loadAgentsCatalogue();
  emitCatalogue(out, shipped);
  return shipped.agents.map((a) => a.token);
}

async function rebuildFile(out: RowEmitter, db: SnapshotDb, date: string, f: Row<'files'>, stream: AsyncIterable<Uint8Array> | null, agents: readonly string[], semantics: RobotsSemantics): Promise<Row<'files'>> {
  // Snapshots written before files.obtained said how in files.status: read that as provenance.
  const row = { ...f, obtained: f.obtained ?? LEGACY_OBTAINED[f.status ?? ''] ?? 'fetched' };
  const truncated = f.status === 'too_large';
  if (f.file_kind === 'ads.txt' || f.file_kind === 'app-ads.txt') {
    if (!stream) return row;
    return withContent(row, adsContent(await parseAdsBody(out, f.subject, f.file_kind, stream), f.content_type, truncated));
  }
  if (f.file_kind === 'robots.txt') {
    const parsed = stream ? await parseRobotsBody(stream) : null;
    const txt = parsed?.txt ?? null;
    // The verdicts are computed again in the reading the night recorded (robots_verdicts.semantics).
    const policy = policyOf(f.http_status, f.status === 'redirect_error' ? 'redirect_limit' : null, txt, row.obtained !== 'fetched', semantics);
    const rules = emitRobots(out, f.subject, txt, policy, DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS, semantics);
    const usage = emitAgentRows(out, f.subject, txt, policy, agents);
    const lic = emitLicenses(out, f.subject, txt, f.url ?? `https://${f.subject}/robots.txt`);
    return withContent(row, robotsContent(parsed, truncated, { rules, errors: usage.errors + lic.errors, warnings: usage.warnings + lic.warnings }));
  }
  if (isConsentKind(f.file_kind)) {
    if (!stream) return row;
    return withContent(row, consentContent(await parseConsentBody(out, f.subject, f.file_kind, f.url ?? '', stream), truncated));
  }
  if (f.file_kind === 'home_page') return rebuildHomePage(out, db, date, row, stream, agents);
  if (f.file_kind === 'sellers.json') {
    if (stream) {
      const read = await parseSellersBody(out, f.subject, stream);
      const content = sellersContent(read, truncated);
      out.emit('sellers_files', sellersFileRow(f.subject, content.verdict.status, read.summary, await askedWhere(db, date, f.subject)));
      return withContent(row, content);
    }
    // Too large to have been kept (over the body store's cap): its rows are copied as they were.
    const q = (t: 'sellers' | 'parse_issues') =>
      db.rows(`SELECT * EXCLUDE (snapshot_date) FROM ${t} WHERE snapshot_date = CAST($1 AS DATE) AND ${t === 'sellers' ? 'ad_system_domain' : "file_kind = 'sellers.json' AND subject"} = $2`, [date, f.subject]);
    for (const s of await q('sellers')) out.emit('sellers', s as unknown as Row<'sellers'>);
    for (const i of await q('parse_issues')) out.emit('parse_issues', i as unknown as Row<'parse_issues'>);
  }
  if (f.file_kind === 'buyers.json' && stream) {
    const read = await parseBuyersBody(out, f.subject, stream);
    const content = buyersContent(read, truncated);
    out.emit('buyers_files', buyersFileRow(f.subject, content.verdict.status, read.summary));
    return withContent(row, content);
  }
  return row;
}

/** Where the crawl asked for the file that served (a network observation, copied as it was; null before the column existed). */
async function askedWhere(db: SnapshotDb, date: string, adSystem: string): Promise<{ location: 'spec' | 'table'; url: string } | null> {
  const [r] = await db.rows(`SELECT * FROM sellers_files WHERE snapshot_date = CAST($1 AS DATE) AND ad_system_domain = $2`, [date, adSystem]);
  const location = r?.location;
  return (location === 'spec' || location === 'table') && typeof r?.location_url === 'string' ? { location, url: r.location_url } : null;
}

/** Copies parts into the new snapshot's partition of `table`; returns them as the manifest lists them. */
async function copyParts(outDir: string, table: TableName, date: string, sources: readonly string[]): Promise<string[]> {
  const to = partitionDir(outDir, table, date);
  await mkdir(to, { recursive: true });
  const published: string[] = [];
  for (const from of [...sources].sort()) {
    const tmp = path.join(to, `.copy-${randomUUID().slice(0, 8)}-${path.basename(from)}.tmp`);
    await copyFile(from, tmp);
    published.push(path.relative(outDir, await publishPart(to, tmp)).split(path.sep).join('/'));
  }
  return published;
}
