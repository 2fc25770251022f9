import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { isValidDnsName } from '../src/util/domain.js';
import { packageRoot } from '../src/util/package-root.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * data/ad-system-companies.tsv and the view that reads it (sql/views.sql, ad_system_companies),
 * as `adsnap sql` and the report open it: the table is read from the installed package's data/
 * folder whatever the working directory. The file is parsed here on its own (split on tabs) and
 * the view must give the same rows.
 */
const tempDir = useTempDirs('companies');
const FILE = path.join(packageRoot(), 'data', 'ad-system-companies.tsv');
const ISO_DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;

function fileRows(): string[][] {
  const lines = readFileSync(FILE, 'utf8').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
  expect(lines[0]!.split('\t')).toEqual(['ad_system_domain', 'company', 'brand', 'basis', 'source', 'date']);
  return lines.slice(1).map((l) => l.split('\t'));
}

let db: Awaited<ReturnType<typeof openSnapshotDb>>;
const cwd = process.cwd();

beforeAll(async () => {
  // Elsewhere than the repository: the view must not depend on the working directory.
  process.chdir(tempDir());
  db = await openSnapshotDb(tempDir(), { allowEmpty: true });
});

afterAll(() => {
  db?.close();
  process.chdir(cwd);
});

describe('data/ad-system-companies.tsv', () => {
  it('every entry is a lower-case ad-system domain, listed once, with a company, a basis, a source URL and a date', () => {
    const rows = fileRows();
    expect(rows.length).toBeGreaterThanOrEqual(25);
    for (const r of rows) {
      expect(r, r.join(' | ')).toHaveLength(6);
      const [domain, company, brand, basis, source, date] = r as [string, string, string, string, string, string];
      expect(isValidDnsName(domain) && domain === domain.toLowerCase(), domain).toBe(true);
      expect(company.trim(), domain).not.toBe('');
      expect(brand.trim(), domain).not.toBe('');
      expect(['own_domain', 'acquisition', 'rename'], domain).toContain(basis);
      expect(source, domain).toMatch(/^https?:\/\/\S+ \(.+\)/);
      expect(date, domain).toMatch(ISO_DATE);
    }
    expect(new Set(rows.map((r) => r[0])).size).toBe(rows.length);
  });

  it('names the pairs the published studies merge: one company, several domains', () => {
    const company = new Map(fileRows().map((r) => [r[0]!, r[1]!]));
    const same = (a: string, b: string) => expect(company.get(a), `${a} / ${b}`).toBe(company.get(b));
    same('appnexus.com', 'xandr.com');
    same('spotx.tv', 'spotxchange.com');
    same('spotx.tv', 'rubiconproject.com');
    same('yahoo.com', 'advertising.com');
    same('google.com', 'doubleclick.net');
    same('indexexchange.com', 'casalemedia.com');
    same('lijit.com', 'sovrn.com');
    same('amazon-adsystem.com', 'aps.amazon.com');
    same('smartadserver.com', 'sharethrough.com');
    expect(company.get('appnexus.com')).toBe('Microsoft');
    expect(company.get('spotx.tv')).toBe('Magnite');
  });
});

describe('view ad_system_companies and adsnap_company', () => {
  it('the view has the file’s rows, whatever the working directory', async () => {
    const rows = await db.rows(`SELECT ad_system_domain, company, brand, basis, source, source_date FROM ad_system_companies ORDER BY ad_system_domain`);
    const expected = fileRows()
      .map(([ad_system_domain, company, brand, basis, source, source_date]) => ({ ad_system_domain, company, brand, basis, source, source_date }))
      .sort((a, b) => a.ad_system_domain!.localeCompare(b.ad_system_domain!));
    expect(rows).toEqual(expected);
  });

  it('a domain not in the table is its own company; names compare case-insensitively', async () => {
    const rows = await db.rows(`SELECT d, adsnap_company(d) AS c FROM (VALUES ('spotxchange.com'), ('XANDR.COM'), ('pubmatic.com'), ('adx-unknown.test')) t(d) ORDER BY d`);
    expect(rows).toEqual([
      { d: 'XANDR.COM', c: 'Microsoft' },
      { d: 'adx-unknown.test', c: 'adx-unknown.test' },
      { d: 'pubmatic.com', c: 'pubmatic.com' },
      { d: 'spotxchange.com', c: 'Magnite' },
    ]);
  });
});
