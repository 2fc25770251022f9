import { describe, expect, it } from 'vitest';
import { parseAdsBody, parseRobotsBody, parseSellersBody, type IssueCounts } from '../pipelines/body-parsers.js';
import type { Rows } from '../pipelines/context.js';
import { adsContent, consentContent, crawledFileRow, disallowedFileRow, NO_CONTENT, robotsContent, sellersContent, withContent } from '../pipelines/file-row.js';
import type { Obtained } from '../pipelines/obtain-file.js';

// The one files-row assembly (pipelines/file-row.ts) the crawl jobs and reparse share: real
// bodies through the real parsers, then the row.

const rows = { emit: () => {}, settle: async () => {} } as unknown as Rows;
const body = (s: string) => (async function* () {
  yield Buffer.from(s);
})();

function obtained(over: Partial<Obtained<unknown>['file']> = {}): Obtained<unknown> {
  return {
    outcome: null,
    body: null,
    obtained: 'fetched',
    previous: null,
    file: { url: 'https://a.example/ads.txt', httpStatus: 200, contentType: 'text/plain', bytes: 10, sha256: 'ab', etag: '"e"', lastModified: null, fetchedAt: new Date(0), freshUntil: null, ageDays: null, truncated: false, fetchStatus: null, ...over },
  };
}

const who = { subject: 'a.example', fileKind: 'ads.txt', via: 'root' as const, robotsAllowed: true };
const ADS = 'greenadexchange.com, XF7342, DIRECT, 5jyxf8k54\nbad line\nOWNERDOMAIN=a.example\n';

describe('adsContent and crawledFileRow', () => {
  it('a body read whole: its verdict, counts and lines, and where it came from', async () => {
    const content = adsContent(await parseAdsBody(rows, 'a.example', 'ads.txt', body(ADS)), 'text/plain', false);
    const { row, status } = crawledFileRow(obtained(), who, content);
    expect(status).toBe('ok');
    expect(row).toMatchObject({ subject: 'a.example', file_kind: 'ads.txt', via: 'root', url: 'https://a.example/ads.txt', status: 'ok', valid: true, http_status: 200, robots_allowed: true, records: 1, variables: 1, errors: 1, warnings: 0, lines: 3, obtained: 'fetched', bytes: 10, sha256: 'ab', etag: '"e"', content_type: 'text/plain' });
  });

  it('the Content-Type and truncation judge the same records (ads.txt 1.1 §3.1)', async () => {
    const read = () => parseAdsBody(rows, 'a.example', 'ads.txt', body(ADS));
    expect(adsContent(await read(), 'application/octet-stream', false)).toMatchObject({ verdict: { status: 'invalid_content_type', valid: false }, records: 1 });
    expect(adsContent(await read(), 'text/plain', true).verdict).toEqual({ status: 'too_large', valid: false });
  });

  it("the fetch's status wins when it decided, and no body read leaves no URL", async () => {
    const content = adsContent(await parseAdsBody(rows, 'a.example', 'ads.txt', body(ADS)), 'text/plain', false);
    expect(crawledFileRow(obtained({ fetchStatus: 'blocked' }), who, content).row).toMatchObject({ status: 'blocked', valid: false, records: 1, url: 'https://a.example/ads.txt' });
    const none = crawledFileRow(obtained({ httpStatus: 404, fetchStatus: 'not_found', bytes: 0 }), who, NO_CONTENT);
    expect(none.row).toMatchObject({ status: 'not_found', valid: false, url: null, http_status: 404, records: 0, lines: null });
    expect(crawledFileRow(obtained({ httpStatus: null }), who, NO_CONTENT).status).toBe('unreachable');
    // robots.txt names the file its policy came from even without a body.
    expect(crawledFileRow(obtained({ fetchStatus: 'not_found' }), { ...who, fileKind: 'robots.txt' }, NO_CONTENT, true).row.url).toBe('https://a.example/ads.txt');
  });

  it('a file not asked for (--obey-robots all) is disallowed_by_robots with nothing obtained', () => {
    expect(disallowedFileRow({ ...who, robotsAllowed: false })).toMatchObject({ status: 'disallowed_by_robots', obtained: null, url: null, http_status: null, valid: false, robots_allowed: false, records: 0 });
  });
});

describe('the other kinds', () => {
  it('robots.txt: records are the rule rows written; the agent and licence rows add their issues', async () => {
    const read = await parseRobotsBody(body('User-agent: *\nDisallow: /x\nSitemap: https://a.example/s.xml\nNonsense line\n'));
    const emitted: { rules: number } & IssueCounts = { rules: 1, errors: 2, warnings: 1 };
    const c = robotsContent(read, false, emitted);
    expect(c).toMatchObject({ verdict: { status: 'ok', valid: true }, records: 1, variables: 1, lines: 4, errors: 2 + read.txt.issues.filter((i) => i.severity === 'error').length });
    expect(c.warnings).toBe(1 + read.txt.issues.filter((i) => i.severity === 'warning').length);
    expect(robotsContent(null, false, { rules: 0, errors: 0, warnings: 0 })).toEqual(NO_CONTENT);
  });

  it('sellers.json: entries are records; no lines', async () => {
    const read = await parseSellersBody(rows, 'ads.example', body('{"version":"1.0","sellers":[{"seller_id":"1","seller_type":"PUBLISHER","name":"A","domain":"a.example"}]}'));
    expect(sellersContent(read, false)).toMatchObject({ verdict: { status: 'ok', valid: true }, records: 1, variables: 0, lines: null, errors: 0 });
    expect(sellersContent(read, true).verdict).toEqual({ status: 'too_large', valid: false });
  });

  it('consent files: their own verdict, too_large when cut', () => {
    const parsed = { verdict: { status: 'ok' as const, valid: true }, records: 3, counts: { errors: 1, warnings: 0 } };
    expect(consentContent(parsed, false)).toMatchObject({ verdict: { status: 'ok', valid: true }, records: 3, errors: 1 });
    expect(consentContent(parsed, true).verdict).toEqual({ status: 'too_large', valid: false });
  });
});

describe('withContent (reparse)', () => {
  it("replaces a stored row's content columns, keeping where it came from; no verdict leaves it as it was", async () => {
    const stored = crawledFileRow(obtained({ fetchedAt: new Date(5) }), who, NO_CONTENT).row;
    const before = { ...stored };
    expect(withContent({ ...stored }, NO_CONTENT)).toEqual(before);
    const content = adsContent(await parseAdsBody(rows, 'a.example', 'ads.txt', body(ADS)), 'text/plain', false);
    const rebuilt = withContent({ ...stored }, content);
    expect(rebuilt).toMatchObject({ status: 'ok', valid: true, records: 1, variables: 1, errors: 1, lines: 3, fetched_at: new Date(5), sha256: 'ab' });
    // The same columns a crawl of that body writes.
    const crawled = crawledFileRow(obtained({ fetchedAt: new Date(5) }), who, content).row;
    expect({ ...rebuilt, url: crawled.url }).toEqual(crawled);
  });
});
