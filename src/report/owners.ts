/**
 * Owners in the pooling section, as registrable domains. A file's owner is its first OWNERDOMAIN,
 * else its subject (seller_match.owner_domain), written as the file wrote it: `www.x.com`,
 * `https://X.com/` and `x.com` are one business, and so are `news.x.co.uk` and `x.co.uk`. DuckDB
 * has no Public Suffix List, so the reduction is a precomputed table, `report_owner_domain(owner,
 * owner_domain)`: the distinct owner strings of the nights read (a few per file, not per record),
 * each reduced in Node as adsnap keys sites everywhere else — its host (adsnap_host's reduction,
 * sellerDomainHost), made ASCII, then tldts's registrable domain with the private section
 * (src/util/domain.ts rootDomain); a host without one (an IP address, a bare suffix) is its own
 * owner. The report writes the table to `pooling.owner_domains.csv` beside report.json and loads
 * it back through a `setup_sql` statement, so `adsnap sql` reads the same owners; the night
 * summary builds the same table for its one night.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../util/sql-literal.js';
import { OWNER_TABLE } from '../sql/derived.js';
import { sellerDomainHost } from '../resolve/intermediaries.js';
import { rootDomain, toAsciiHost } from '../util/domain.js';

/** The table (temporary) that maps an owner as written to its registrable domain (named in src/sql/derived.ts, whose SQL reads it). */
export { OWNER_TABLE };
/** Its file beside report.json. */
export const OWNER_CSV = 'pooling.owner_domains.csv';

/** A filter on a column's snapshot date (the same shape as src/sql/derived.ts's NightFilter). */
type Nights = (column: string) => string;

/** The owner of a file as written → its registrable domain (lower-case ASCII). */
export function registrableOwner(owner: string): string {
  const host = sellerDomainHost(owner);
  if (host === null) return owner.trim().toLowerCase();
  const ascii = toAsciiHost(host) || host;
  return rootDomain(ascii) ?? ascii;
}

/** The distinct owner strings of the nights `nights` names: every OWNERDOMAIN value, and the subject of every valid file. */
function ownersSql(nights: Nights): string {
  return `SELECT DISTINCT owner FROM (
  SELECT value_domain AS owner FROM ads_variables WHERE ${nights('snapshot_date')} AND name = 'OWNERDOMAIN'
  UNION ALL
  SELECT subject FROM files WHERE ${nights('snapshot_date')} AND file_kind IN ('ads.txt', 'app-ads.txt') AND valid
) WHERE owner IS NOT NULL AND owner <> ''`;
}

/**
 * Creates the temp table OWNER_TABLE for the nights `nights` names; returns its row count. The
 * owners are reduced one chunk of the result at a time: read whole into JavaScript, the 306,550
 * owners of a 1M-site night took 100 MB of heap, the start of the commit's derivation its peak.
 */
export async function createOwnerTable(conn: DuckDBConnection, nights: Nights): Promise<number> {
  const owners = await conn.run(ownersSql(nights));
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${OWNER_TABLE} (owner VARCHAR NOT NULL, owner_domain VARCHAR NOT NULL)`);
  const appender = await conn.createAppender(OWNER_TABLE, 'main', 'temp');
  let n = 0;
  try {
    for (let chunk = await owners.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await owners.fetchChunk()) {
      for (const value of chunk.getColumnValues(0)) {
        const o = String(value);
        appender.appendVarchar(o);
        appender.appendVarchar(registrableOwner(o));
        appender.endRow();
        n++;
      }
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  return n;
}

/**
 * The report's owners: the table for the window (`in_window`), written to `csvPath`; returns the
 * `setup_sql` statement that loads it back (already run), so the figures read what the file holds.
 */
export async function ownerTableSetup(conn: DuckDBConnection, csvPath: string): Promise<string> {
  await createOwnerTable(conn, (c) => `in_window(${c})`);
  await conn.run(`COPY ${OWNER_TABLE} TO ${sqlString(csvPath)} (FORMAT csv, HEADER true)`);
  const load = `CREATE OR REPLACE TEMP TABLE ${OWNER_TABLE} AS SELECT * FROM read_csv(${sqlString(csvPath)}, header = true, quote = '"', escape = '"', columns = {'owner': 'VARCHAR', 'owner_domain': 'VARCHAR'})`;
  await conn.run(load);
  return load;
}
