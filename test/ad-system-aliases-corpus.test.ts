import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { parseAdsTxt } from '../src/parse/adstxt/index.js';
import { corpusPath, describeWithCorpus } from './helpers/corpus.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * The view ad_system_alias_candidates on real files: the records of the corpus's ads.txt files
 * (every file one subject, one night) stand in for the ads_records view, and the view's
 * certification-authority rule must pair the domains that real files give one id, and only
 * those. Skipped without the corpus.
 */
const tempDir = useTempDirs('aliases-corpus');
let db: Awaited<ReturnType<typeof openSnapshotDb>>;

beforeAll(async () => {
  const dir = corpusPath('adstxt');
  const lines: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const { records } = parseAdsTxt(readFileSync(path.join(dir, name)), { fileKind: 'ads.txt' });
    for (const r of records) {
      lines.push(JSON.stringify({ subject: name, ad_system_domain: r.adSystemDomain, cert_authority_id: r.certAuthorityId }));
    }
  }
  const file = path.join(tempDir(), 'records.ndjson');
  writeFileSync(file, lines.join('\n') + '\n');
  db = await openSnapshotDb(tempDir(), { allowEmpty: true });
  // Views bind by name when read: the alias view now reads these records.
  await db.connection.run(
    `CREATE OR REPLACE VIEW ads_records AS SELECT DATE '2026-11-26' AS snapshot_date, subject, 'ads.txt' AS file_kind, ad_system_domain, cert_authority_id
     FROM read_json('${file.replace(/'/g, "''")}', format = 'newline_delimited', columns = {subject: 'VARCHAR', ad_system_domain: 'VARCHAR', cert_authority_id: 'VARCHAR'})`,
  );
}, 60_000);

afterAll(() => db?.close());

describeWithCorpus('ad_system_alias_candidates over the corpus', () => {
  it('pairs the domains real files give one certification-authority id, the known companies marked', async () => {
    const rows = await db.rows(`SELECT ad_system_domain AS a, other_domain AS b, detail, files, known_same_company AS known FROM ad_system_alias_candidates WHERE evidence = 'cert_authority_id' ORDER BY files DESC, a, b`);
    const pairs = rows.map((r) => `${r.a} ${r.b}`);
    // Pairs of one company by data/ad-system-companies.tsv.
    for (const p of ['spotx.tv spotxchange.com', 'lijit.com sovrn.com', 'appnexus.com xandr.com', 'aol.com yahoo.com', 'advertising.com yahoo.com']) expect(pairs).toContain(p);
    expect(rows.find((r) => r.a === 'appnexus.com' && r.b === 'xandr.com')).toMatchObject({ detail: 'f5ab79cb980f11d1', known: true });
    // Independently: for each pair, both domains' most frequent id across the files is the same.
    const own = await db.rows(`
      SELECT ad_system_domain, arg_max(cert, n) AS cert FROM (
        SELECT ad_system_domain, lower(cert_authority_id) AS cert, count(DISTINCT subject) AS n FROM ads_records
        WHERE cert_authority_id IS NOT NULL GROUP BY ALL) GROUP BY 1`);
    const ownOf = new Map(own.map((o) => [o.ad_system_domain, o.cert]));
    for (const r of rows) {
      expect(ownOf.get(r.a), `${r.a}`).toBe(r.detail);
      expect(ownOf.get(r.b), `${r.b}`).toBe(r.detail);
      expect(Number(r.files)).toBeGreaterThanOrEqual(3);
    }
    // Google's id is copied onto other exchanges' lines, yet no other domain takes it as its own.
    expect(rows.filter((r) => r.detail === 'f08c47fec0942fa0')).toEqual([]);
    // A pair the table does not join is left for review, not merged.
    expect(rows.some((r) => !r.known)).toBe(true);
  });
});
