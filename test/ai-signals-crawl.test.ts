import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import { repoRoot } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * Issue 30's fixture hosts (data-samples/simweb-consent/) crawled with and without --ai-signals;
 * every row of site_ai_consent checked against values worked out by hand from the fixture files.
 */
const tempDir = useTempDirs('ai-signals');
const fixtures = path.join(repoRoot, 'data-samples', 'simweb-consent');
let web: Simweb;
let tmp: string;
/** The --ai-signals snapshot, for the report test. */
let asked: string | null = null;

beforeAll(async () => {
  web = await startSimweb({ hosts: 0, hostile: false, fixturesDir: fixtures });
  tmp = tempDir();
});

afterAll(async () => {
  await web?.close();
});

const COLUMNS = 'host, ai_agents_blocked_by_name, content_signal_ai_train, tdm_reservation, tdm_policy, rsl_license_url, llms_txt';

async function crawl(name: string, extra: string[], date = '2026-11-26'): Promise<string> {
  const out = path.join(tmp, name);
  const r = await runCli(['crawl', '--domains', path.join(fixtures, 'domains.txt'), '--out', out, '--no-sellers', '--progress', 'none', '--snapshot-date', date, ...extra, ...web.connectArgs]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return out;
}

// By hand, from the fixture files: the free signals (robots.txt and the headers of what the crawl asks anyway).
const FREE = {
  // GPTBot (training), CCBot (data), ChatGPT-User (assistant); not OAI-SearchBot (search) nor ClaudeBot (partial).
  'tdm-all.test': [3, null, null, null, null, null],
  // Disallow: / for '*': every agent blocked, none by name.
  'tdm-news.test': [0, null, null, null, null, null],
  // robots.txt 503: what the agents get is not a reading of the file.
  'tdm-broken.test': [null, null, null, null, null, null],
  'rsl-site.test': [0, 'no', null, null, 'https://rsl-site.test/license.xml', null],
  // The robots.txt response's headers.
  'tdm-header.test': [0, null, 1, 'https://tdm-header.test/policy.json', null, null],
  'llms-site.test': [0, null, null, null, null, null],
  'llms-html.test': [0, null, null, null, null, null],
  'none.test': [0, null, null, null, null, null],
} as const;

// With --ai-signals: tdmrep.json and llms.txt asked everywhere, the same-host RSL licence read.
const ASKED = {
  'tdm-all.test': [3, null, 1, 'https://tdm-all.test/tdm-policy.json', null, false],
  // Only /news/ and /images/*.jpg: no rule matches '/'.
  'tdm-news.test': [0, null, null, null, null, false],
  'tdm-broken.test': [null, null, null, null, null, false],
  'rsl-site.test': [0, 'no', null, null, 'https://rsl-site.test/license.xml', false],
  // The well-known file's rule for '/' (0) ranks before the header (1).
  'tdm-header.test': [0, null, 0, null, null, false],
  'llms-site.test': [0, null, null, null, null, true],
  'llms-html.test': [0, null, null, null, null, false],
  'none.test': [0, null, null, null, null, false],
} as const;

async function consentRows(db: Awaited<ReturnType<typeof openSnapshotDb>>) {
  return db.rows(`SELECT ${COLUMNS} FROM site_ai_consent ORDER BY host`);
}

function expected(table: Record<string, readonly unknown[]>) {
  return Object.entries(table)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([host, [blocked, signal, tdm, policy, rsl, llms]]) => ({ host, ai_agents_blocked_by_name: blocked, content_signal_ai_train: signal, tdm_reservation: tdm, tdm_policy: policy, rsl_license_url: rsl, llms_txt: llms }));
}

describe('site_ai_consent (issue 30)', () => {
  it('without --ai-signals: robots.txt License lines and tdm-* headers only; no consent file asked', async () => {
    const out = await crawl('free', []);
    const db = await openSnapshotDb(out);
    try {
      expect(await consentRows(db)).toEqual(expected(FREE));
      expect(await db.rows(`SELECT count(*)::INT AS n FROM fetches WHERE file_kind IN ('tdmrep.json', 'llms.txt', 'rsl')`)).toEqual([{ n: 0 }]);
      expect(await db.rows(`SELECT host, url, resolved_url, same_host, line_no FROM robots_licenses ORDER BY line_no`)).toEqual([
        { host: 'rsl-site.test', url: '/license.xml', resolved_url: 'https://rsl-site.test/license.xml', same_host: true, line_no: 5 },
        { host: 'rsl-site.test', url: 'https://licensor.test/other.xml', resolved_url: 'https://licensor.test/other.xml', same_host: false, line_no: 6 },
      ]);
      expect(await db.rows(`SELECT file_kind, tdm_reservation, tdm_policy FROM fetches WHERE tdm_reservation IS NOT NULL`)).toEqual([
        { file_kind: 'robots.txt', tdm_reservation: '1', tdm_policy: 'https://tdm-header.test/policy.json' },
      ]);
    } finally {
      db.close();
    }
  }, 60_000);

  it('with --ai-signals: tdmrep.json, llms.txt and the same-host RSL licence, read as data', async () => {
    const out = await crawl('asked', ['--ai-signals']);
    asked = out;
    const db = await openSnapshotDb(out);
    try {
      expect(await consentRows(db)).toEqual(expected(ASKED));
      // Files: two asked per site, and the one licence on its site's host (never licensor.test).
      expect(await db.rows(`SELECT subject, file_kind, status, valid, records FROM files WHERE file_kind IN ('tdmrep.json', 'llms.txt', 'rsl') AND status <> 'not_found' ORDER BY subject, file_kind`)).toEqual([
        { subject: 'llms-html.test', file_kind: 'llms.txt', status: 'html', valid: false, records: 0 },
        { subject: 'llms-site.test', file_kind: 'llms.txt', status: 'ok', valid: true, records: 3 },
        { subject: 'rsl-site.test', file_kind: 'rsl', status: 'ok', valid: true, records: 3 },
        { subject: 'tdm-all.test', file_kind: 'tdmrep.json', status: 'ok', valid: true, records: 1 },
        { subject: 'tdm-broken.test', file_kind: 'tdmrep.json', status: 'invalid_json', valid: false, records: 0 },
        { subject: 'tdm-header.test', file_kind: 'tdmrep.json', status: 'ok', valid: true, records: 1 },
        { subject: 'tdm-news.test', file_kind: 'tdmrep.json', status: 'ok', valid: true, records: 2 },
      ]);
      expect(await db.rows(`SELECT count(*)::INT AS n FROM files WHERE file_kind IN ('tdmrep.json', 'llms.txt')`)).toEqual([{ n: 16 }]);
      expect(await db.rows(`SELECT count(*)::INT AS n FROM fetches WHERE host = 'licensor.test'`)).toEqual([{ n: 0 }]);
      expect(await db.rows(`SELECT host, rule_no, location, tdm_reservation, tdm_policy, matches_root FROM tdmrep_rules ORDER BY host, rule_no`)).toEqual([
        { host: 'tdm-all.test', rule_no: 1, location: '/', tdm_reservation: 1, tdm_policy: 'https://tdm-all.test/tdm-policy.json', matches_root: true },
        { host: 'tdm-header.test', rule_no: 1, location: '/', tdm_reservation: 0, tdm_policy: null, matches_root: true },
        { host: 'tdm-news.test', rule_no: 1, location: '/news/', tdm_reservation: 1, tdm_policy: null, matches_root: false },
        { host: 'tdm-news.test', rule_no: 2, location: '/images/*.jpg', tdm_reservation: 0, tdm_policy: null, matches_root: false },
      ]);
      expect(await db.rows(`SELECT subject, file_kind, code FROM parse_issues WHERE file_kind IN ('tdmrep.json', 'llms.txt', 'rsl') ORDER BY subject, code`)).toEqual([
        { subject: 'tdm-broken.test', file_kind: 'tdmrep.json', code: 'TDMREP_NOT_JSON' },
      ]);
      expect(await db.rows(`SELECT url, content_no, content_url, license_no, permits, prohibits, payment_type FROM rsl_licenses ORDER BY content_no, license_no`)).toEqual([
        { url: 'https://rsl-site.test/license.xml', content_no: 1, content_url: '/', license_no: 1, permits: ['usage:search'], prohibits: ['usage:train-ai'], payment_type: null },
        { url: 'https://rsl-site.test/license.xml', content_no: 1, content_url: '/', license_no: 2, permits: ['usage:train-ai', 'usage:ai-input', 'geo:US', 'geo:CA'], prohibits: [], payment_type: 'subscription' },
        { url: 'https://rsl-site.test/license.xml', content_no: 2, content_url: '/archive/*', license_no: 1, permits: [], prohibits: [], payment_type: 'free' },
      ]);
      expect(await db.rows(`SELECT host, markdown, title, summary, sections, links FROM llms_txt ORDER BY host`)).toEqual([
        { host: 'llms-html.test', markdown: false, title: null, summary: null, sections: 0, links: 0 },
        { host: 'llms-site.test', markdown: true, title: 'LLMs Site', summary: 'A test site for the llms.txt proposal: a title, this summary, and two sections of links.', sections: 2, links: 3 },
      ]);
    } finally {
      db.close();
    }
  }, 60_000);

  it('the report section: adoption of each signal and how often they agree, by hand', async () => {
    expect(asked).not.toBeNull();
    const dir = path.join(tmp, 'report');
    const r = await runCli(['report', asked!, '--out', dir]);
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as { sections: { key: string; figures: { key: string; rows: Record<string, unknown>[] }[] }[] };
    const figure = (key: string) => report.sections.find((s) => s.key === 'consent')!.figures.find((f) => f.key === key)!.rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' || typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v])));
    // 8 sites; tdm-broken.test's robots.txt answered 503, so the robots.txt signals are asked of 7.
    expect(figure('consent.adoption')).toEqual([
      { signal: 'ai_agents_blocked_by_name', sites: 1, asked: 7, share: 1 / 7 },
      { signal: 'content_signal_ai_train_no', sites: 1, asked: 7, share: 1 / 7 },
      { signal: 'tdm_reservation', sites: 1, asked: 8, share: 1 / 8 },
      { signal: 'rsl_license', sites: 1, asked: 7, share: 1 / 7 },
      { signal: 'llms_txt', sites: 1, asked: 8, share: 1 / 8 },
    ]);
    // tdm-all.test reserves and blocks by name; rsl-site.test says ai-train=no and names a licence but blocks no agent by name.
    expect(figure('consent.agreement')).toEqual([
      { signal_a: 'tdm_reservation', signal_b: 'ai_agents_blocked_by_name', both: 1, only_a: 0, only_b: 0, neither: 6, sites: 7 },
      { signal_a: 'tdm_reservation', signal_b: 'content_signal_ai_train_no', both: 0, only_a: 1, only_b: 1, neither: 5, sites: 7 },
      { signal_a: 'content_signal_ai_train_no', signal_b: 'ai_agents_blocked_by_name', both: 0, only_a: 1, only_b: 1, neither: 5, sites: 7 },
      { signal_a: 'rsl_license', signal_b: 'ai_agents_blocked_by_name', both: 0, only_a: 1, only_b: 1, neither: 5, sites: 7 },
      // tdm-news.test blocks every crawler through '*' (by name: none), and reserves nothing for '/'.
      { signal_a: 'tdm_reservation', signal_b: 'ai_agent_blocked_fully', both: 1, only_a: 0, only_b: 1, neither: 5, sites: 7 },
    ]);
  }, 120_000);

  it('adsnap reparse rebuilds the consent tables from the kept bodies, row for row', async () => {
    expect(asked).not.toBeNull();
    const rebuilt = path.join(tmp, 'rebuilt');
    const r = await runCli(['reparse', asked!, '--out', rebuilt]);
    expect(r.code).toBe(0);
    const queries = [
      `SELECT ${COLUMNS} FROM site_ai_consent ORDER BY host`,
      'SELECT * EXCLUDE (snapshot_date) FROM tdmrep_rules ORDER BY host, rule_no',
      'SELECT * EXCLUDE (snapshot_date) FROM rsl_licenses ORDER BY host, content_no, license_no',
      'SELECT * EXCLUDE (snapshot_date) FROM llms_txt ORDER BY host',
      'SELECT * EXCLUDE (snapshot_date) FROM robots_licenses ORDER BY host, line_no',
      "SELECT subject, file_kind, status, valid, records, errors, warnings FROM files WHERE file_kind IN ('tdmrep.json', 'llms.txt', 'rsl') ORDER BY subject, file_kind",
      "SELECT * EXCLUDE (snapshot_date) FROM parse_issues WHERE file_kind IN ('tdmrep.json', 'llms.txt', 'rsl') ORDER BY subject, code",
    ];
    const read = async (root: string) => {
      const db = await openSnapshotDb(root);
      try {
        const out = [];
        for (const q of queries) out.push(await db.rows(q));
        return out;
      } finally {
        db.close();
      }
    };
    const before = await read(asked!);
    expect(before[1]!.length).toBe(4);
    expect(await read(rebuilt)).toEqual(before);
  }, 120_000);

  it('every night: the next night asks again and gives the same rows; a night without the flag leaves llms_txt null', async () => {
    await crawl('nightly', ['--ai-signals'], '2026-11-26');
    const out = await crawl('nightly', ['--ai-signals'], '2026-11-27');
    await crawl('nightly', [], '2026-11-28');
    const db = await openSnapshotDb(out);
    try {
      for (const [date, table] of [['2026-11-26', ASKED], ['2026-11-27', ASKED], ['2026-11-28', FREE]] as const) {
        expect(await db.rows(`SELECT ${COLUMNS} FROM site_ai_consent WHERE snapshot_date = DATE '${date}' ORDER BY host`)).toEqual(expected(table));
      }
      // The consent files of the second night were asked that night: a 404 again, or the same body
      // confirmed by a 304 (the fixture web sends validators); none taken unasked.
      expect(await db.rows(`SELECT obtained, count(*)::INT AS n FROM files WHERE snapshot_date = DATE '2026-11-27' AND file_kind IN ('tdmrep.json', 'llms.txt', 'rsl') GROUP BY ALL ORDER BY obtained`)).toEqual([
        { obtained: 'fetched', n: 10 },
        { obtained: 'revalidated', n: 7 },
      ]);
      // tdm-header.test's robots.txt was revalidated on the third night: its 304 carries no
      // tdm-reservation, the answer its copy came from did (RFC 9111 §4.3.4).
      expect(await db.rows(`SELECT obtained FROM files WHERE snapshot_date = DATE '2026-11-28' AND subject = 'tdm-header.test' AND file_kind = 'robots.txt'`)).toEqual([{ obtained: 'revalidated' }]);
      expect(await db.rows(`SELECT status_code, tdm_reservation FROM fetches WHERE snapshot_date = DATE '2026-11-28' AND subject = 'tdm-header.test' AND file_kind = 'robots.txt'`)).toEqual([{ status_code: 304, tdm_reservation: null }]);
    } finally {
      db.close();
    }
  }, 180_000);
});
