/**
 * The figures' vocabulary (docs/reference/figures.md): the status sets of sql/views.sql are the
 * TypeScript lists that decide statuses (generated, never re-typed), those lists are exactly what
 * the deciding functions produce, and the Wilson 95% macro gives the published intervals.
 */
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { ADS_OBSERVED_STATUSES, ADS_TEXT_STATUSES, adsFileStatus, READABLE_SELLERS_STATUSES, SELLERS_OBSERVED_STATUSES, sellersFileStatus } from '../src/resolve/file-status.js';
import { isPlaceholder } from '../src/parse/adstxt/line-tokenizer.js';
import { vocabularySql, withVocabulary } from '../src/report/vocabulary.js';
import { repoRoot } from './helpers/corpus.js';

const viewsSql = () => readFile(path.join(repoRoot, 'sql', 'views.sql'), 'utf8');

/** The macros of views.sql, loaded as `adsnap sql` loads them (over an empty root), then `sql` with `params`. */
async function withMacros<T>(names: string[], run: (q: (sql: string, params?: (string | number)[]) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
  const db = await openSnapshotDb(mkdtempSync(path.join(tmpdir(), 'adsnap-vocabulary-')), { allowEmpty: true });
  try {
    const defined = await db.rows(`SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type IN ('macro', 'table_macro')`);
    expect(names.filter((n) => !defined.some((d) => d.function_name === n))).toEqual([]);
    return await run(async (sql, params) => (await db.connection.runAndReadAll(sql, params)).getRowObjectsJS() as Record<string, unknown>[]);
  } finally {
    db.close();
  }
}

describe('the vocabulary block of sql/views.sql', () => {
  it('is what src/report/vocabulary.ts generates (run `npm run docs` when it is not)', async () => {
    const views = await viewsSql();
    expect(views).toContain(vocabularySql());
    expect(withVocabulary(views)).toBe(views);
  });

  it('a text body is every status adsFileStatus gives for a 2xx body, html aside', () => {
    const seen = new Set<string>();
    for (const parseStatus of ['ok', 'placeholder', 'empty', 'html'] as const)
      for (const contentType of ['text/plain; charset=utf-8', 'text/html', null])
        for (const truncated of [false, true])
          for (const records of [0, 3]) seen.add(adsFileStatus({ parseStatus, contentType, truncated, records, variables: 0 }).status);
    seen.delete('html');
    expect([...seen].sort()).toEqual([...ADS_TEXT_STATUSES].sort());
  });

  it('a readable sellers.json is exactly one sellersFileStatus calls valid', () => {
    for (const parseStatus of ['ok', 'invalid_json', 'not_sellers_json'] as const)
      for (const truncated of [false, true]) {
        const v = sellersFileStatus({ parseStatus, truncated });
        expect((READABLE_SELLERS_STATUSES as readonly string[]).includes(v.status), `${parseStatus} ${truncated}`).toBe(v.valid);
      }
  });

  it('an observation never includes what the crawl could not see, nor a sellers.json it could not read', () => {
    for (const s of ['too_large', 'blocked', 'rate_limited', 'http_error', 'unreachable', 'unauthorized', 'redirect_error', 'disallowed_by_robots']) {
      expect(ADS_OBSERVED_STATUSES as readonly string[]).not.toContain(s);
      expect(SELLERS_OBSERVED_STATUSES as readonly string[]).not.toContain(s);
    }
    expect(SELLERS_OBSERVED_STATUSES).toEqual(['ok', 'not_found']);
    // Every text body an ads.txt parser read whole is an observation; a cut one is not.
    expect(ADS_TEXT_STATUSES.filter((s) => s !== 'too_large').every((s) => (ADS_OBSERVED_STATUSES as readonly string[]).includes(s))).toBe(true);
  });

  it('the SQL macros answer as the TypeScript lists and the parser do', async () => {
    await withMacros(['adsnap_text_body', 'adsnap_readable_sellers', 'adsnap_is_placeholder', 'adsnap_observed'], async (q) => {
      for (const [kind, s, want] of [['sellers.json', 'ok', true], ['sellers.json', 'invalid_json', false], ['sellers.json', 'not_found', true], ['ads.txt', 'html', true], ['ads.txt', 'too_large', false], ['app-ads.txt', 'invalid_content_type', true]] as const) {
        const [r] = await q('SELECT adsnap_observed($1::VARCHAR, $2::VARCHAR) AS o', [kind, s]);
        expect(r!.o, `${kind} ${s}`).toBe(want);
      }
      for (const s of ['ok', 'invalid_content_type', 'too_large', 'html', 'not_found', 'blocked']) {
        const [r] = await q('SELECT adsnap_text_body($1::VARCHAR) AS t, adsnap_readable_sellers($1::VARCHAR) AS r', [s]);
        expect(r!.t, s).toBe((ADS_TEXT_STATUSES as readonly string[]).includes(s));
        expect(r!.r, s).toBe((READABLE_SELLERS_STATUSES as readonly string[]).includes(s));
      }
      for (const [domain, id] of [['placeholder.example.com', 'placeholder'], ['placeholder.example.com', 'PlaceHolder'], ['placeholder.example.com', 'pub-1'], ['adx.example', 'placeholder']]) {
        const [r] = await q('SELECT adsnap_is_placeholder($1::VARCHAR, $2::VARCHAR) AS p', [domain!, id!]);
        const record = { adSystemDomain: domain!, sellerAccountId: id!, relationship: 'DIRECT', certAuthorityId: null, extension: null, lineNo: 1 };
        expect(r!.p, `${domain} ${id}`).toBe(isPlaceholder(record as Parameters<typeof isPlaceholder>[0]));
      }
    });
  });
});

describe('adsnap_wilson95: the Wilson score interval at 95%', () => {
  // Newcombe, "Two-sided confidence intervals for the single proportion: comparison of seven
  // methods", Statistics in Medicine 17 (1998), Table I, method 3 (score interval, no continuity correction).
  const published: [number, number, number, number][] = [
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ];
  it('gives Newcombe 1998 Table I to four decimals, and NULL for an empty denominator', async () => {
    await withMacros(['adsnap_wilson95'], async (q) => {
      for (const [k, n, lo, hi] of published) {
        const [r] = await q('SELECT adsnap_wilson95($1::BIGINT, $2::BIGINT) AS ci', [k, n]);
        const [a, b] = r!.ci as number[];
        expect(a!, `${k}/${n}`).toBeCloseTo(lo, 4);
        expect(b!, `${k}/${n}`).toBeCloseTo(hi, 4);
      }
      const [all] = await q('SELECT adsnap_wilson95(20, 20) AS ci');
      expect((all!.ci as number[])[1]).toBe(1);
      const [none] = await q('SELECT adsnap_wilson95(0, 0) AS ci');
      expect(none!.ci).toBeNull();
    });
  });
});
