import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { buildReport } from '../src/report/index.js';
import { BuyersJsonParser, parseBuyersJson } from '../src/parse/buyers/index.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';

const tempDir = useTempDirs('buyers');
const JSON_TYPE = { 'content-type': 'application/json' };

/** A valid buyers.json 1.0 file: the parent object's fields and four buyers. */
const VALID = JSON.stringify({
  contact_email: 'buyers@adx.test',
  version: '1.0',
  identifiers: [{ name: 'TAG-ID', value: 'tag-1' }],
  buyers: [
    { buyer_id: 'seat-1', name: 'Brand One', domain: 'Brand-One.Test', buyer_type: 'BRAND' },
    { buyer_id: 'seat-2', name: 'Agency Two', domain: 'agency.test', buyer_type: 'AGENCY' },
    { buyer_id: 'seat-3', is_confidential: 1, buyer_type: 'AGENCY' },
    { buyer_id: 'seat-4', name: 'No Type Desk' },
  ],
});
/** Cut in the middle of its second entry (a transfer that ended early, served as complete). */
const CUT = '{"version":"1.0","buyers":[{"buyer_id":"c-1","name":"First","buyer_type":"DSP"},{"buyer_id":"c-2","na';

describe('buyers.json parser (IAB Tech Lab buyers.json 1.0)', () => {
  it('reads the header and every buyer; an entry without buyer_id, a repeated id and an unknown key are issues, not drops', () => {
    const r = parseBuyersJson(VALID);
    expect(r.summary).toMatchObject({ status: 'ok', buyers: 4, errors: 0, version: '1.0', contactEmail: 'buyers@adx.test', identifiers: [{ name: 'TAG-ID', value: 'tag-1' }] });
    expect(r.buyers.map((b) => [b.buyerId, b.buyerType, b.domain, b.isConfidential])).toEqual([
      ['seat-1', 'BRAND', 'brand-one.test', null],
      ['seat-2', 'AGENCY', 'agency.test', null],
      ['seat-3', 'AGENCY', null, true],
      ['seat-4', null, null, null],
    ]);
    const odd = parseBuyersJson('{"version":"1.0","buyers":[{"name":"x"},{"buyer_id":"a","seat":"s"},{"buyer_id":"a"},7]}');
    expect(odd.summary).toMatchObject({ status: 'ok', buyers: 3, errors: 2, warnings: 1 });
    expect(odd.issues.map((i) => [i.code, i.severity])).toEqual([
      ['MISSING_BUYER_ID', 'error'],
      ['UNKNOWN_KEY', 'info'],
      ['DUPLICATE_BUYER_ID', 'warning'],
      ['BUYER_NOT_OBJECT', 'error'],
    ]);
  });

  it('a cut file keeps the entries before the cut and is invalid_json; other documents get their status', () => {
    const cut = parseBuyersJson(CUT);
    expect(cut.summary.status).toBe('invalid_json');
    expect(cut.buyers.map((b) => b.buyerId)).toEqual(['c-1']);
    expect(parseBuyersJson('').summary.status).toBe('empty');
    expect(parseBuyersJson('<!doctype html><p>no</p>').summary.status).toBe('html');
    expect(parseBuyersJson('{"version":"1.0","sellers":[]}').summary.status).toBe('not_buyers_json');
    expect(parseBuyersJson('{"version":"1.0","buyers":[]}').summary.status).toBe('empty');
    // Streamed in any chunking: the same buyers.
    const bytes = new TextEncoder().encode(VALID);
    const ids: (string | null)[] = [];
    const p = new BuyersJsonParser({ onBuyer: (b) => ids.push(b.buyerId) });
    for (let i = 0; i < bytes.length; i += 7) p.push(bytes.subarray(i, i + 7));
    expect(p.end().status).toBe('ok');
    expect(ids).toEqual(['seat-1', 'seat-2', 'seat-3', 'seat-4']);
  });
});

let web: LocalWeb;
let out: string;
let seenBuyers: string[];
let seenRobots: string[];
let db: Awaited<ReturnType<typeof openSnapshotDb>>;

beforeAll(async () => {
  const tls = await createTestTls();
  web = await startLocalWeb(tls);
  const tmp = tempDir();
  // One site naming four ad systems: a valid buyers.json, a cut one, none (404), one over the cap.
  web.reply('https://pub.test/ads.txt', 200, ['adx.test, 1, DIRECT', 'cut.test, 2, DIRECT', 'none.test, 3, RESELLER', 'big.test, 4, DIRECT'].join('\n'), { 'content-type': 'text/plain' });
  web.reply('https://adx.test/buyers.json', 200, VALID, JSON_TYPE);
  web.reply('https://cut.test/buyers.json', 200, CUT, JSON_TYPE);
  web.reply('https://big.test/buyers.json', 200, JSON.stringify({ version: '1.0', buyers: Array.from({ length: 200 }, (_, i) => ({ buyer_id: `b-${i}`, buyer_type: 'DSP' })) }), JSON_TYPE);
  for (const a of ['adx.test', 'cut.test', 'none.test', 'big.test']) web.reply(`https://${a}/sellers.json`, 200, JSON.stringify({ version: '1.0', sellers: [] }), JSON_TYPE);
  const domains = path.join(tmp, 'domains.txt');
  writeFileSync(domains, 'pub.test\n');
  out = path.join(tmp, 'out');
  const from = web.seen.length;
  await crawl({ domains, outDir: out, snapshotDate: '2026-11-22', checkpointSeconds: 0, sellersLocations: {}, fetch: { connectTo: web.connectTo, caCerts: [tls.caPem], retries: 0, maxBytes: { 'buyers.json': 1000 } } });
  seenBuyers = web.seen.slice(from).map((s) => s.url).filter((u) => u.endsWith('/buyers.json'));
  seenRobots = web.seen.slice(from).map((s) => s.url).filter((u) => u.endsWith('/robots.txt'));
  db = await openSnapshotDb(out);
}, 60_000);

afterAll(async () => {
  db?.close();
  await web?.close();
});

describe('buyers.json in the sellers phase', () => {
  it('each ad system named by a record is asked once a night, at the root of its domain', () => {
    expect(seenBuyers.sort()).toEqual(['https://adx.test/buyers.json', 'https://big.test/buyers.json', 'https://cut.test/buyers.json', 'https://none.test/buyers.json']);
    // Under the robots.txt the sellers.json job read for the same host: no second request for it.
    expect(seenRobots.filter((u) => u === 'https://adx.test/robots.txt')).toHaveLength(1);
  });

  it('files rows with the sellers.json rules: valid, cut (invalid_json), none (not_found), over the byte cap (too_large)', async () => {
    expect(await db.rows(`SELECT subject, via, status, valid, records, url FROM files WHERE file_kind = 'buyers.json' ORDER BY subject`)).toEqual([
      { subject: 'adx.test', via: 'ad_system', status: 'ok', valid: true, records: 4, url: 'https://adx.test/buyers.json' },
      { subject: 'big.test', via: 'ad_system', status: 'too_large', valid: false, records: expect.any(Number), url: 'https://big.test/buyers.json' },
      { subject: 'cut.test', via: 'ad_system', status: 'invalid_json', valid: false, records: 1, url: 'https://cut.test/buyers.json' },
      { subject: 'none.test', via: 'ad_system', status: 'not_found', valid: false, records: 0, url: null },
    ]);
    expect(await db.rows(`SELECT count(*) AS n FROM fetches WHERE file_kind = 'buyers.json'`)).toEqual([{ n: 4 }]);
  });

  it('buyers and buyers_files rows under the ad system; the cut file keeps the entry before the cut', async () => {
    expect(await db.rows(`SELECT ad_system_domain AS a, buyer_id, buyer_type, domain, is_confidential FROM buyers WHERE ad_system_domain IN ('adx.test', 'cut.test') ORDER BY a, buyer_id`)).toEqual([
      { a: 'adx.test', buyer_id: 'seat-1', buyer_type: 'BRAND', domain: 'brand-one.test', is_confidential: null },
      { a: 'adx.test', buyer_id: 'seat-2', buyer_type: 'AGENCY', domain: 'agency.test', is_confidential: null },
      { a: 'adx.test', buyer_id: 'seat-3', buyer_type: 'AGENCY', domain: null, is_confidential: true },
      { a: 'adx.test', buyer_id: 'seat-4', buyer_type: null, domain: null, is_confidential: null },
      { a: 'cut.test', buyer_id: 'c-1', buyer_type: 'DSP', domain: null, is_confidential: null },
    ]);
    expect(await db.rows(`SELECT ad_system_domain AS a, status, version, contact_email, identifier_names, buyers FROM buyers_files ORDER BY a`)).toEqual([
      { a: 'adx.test', status: 'ok', version: '1.0', contact_email: 'buyers@adx.test', identifier_names: ['TAG-ID'], buyers: 4 },
      { a: 'big.test', status: 'too_large', version: '1.0', contact_email: null, identifier_names: [], buyers: expect.any(Number) },
      { a: 'cut.test', status: 'invalid_json', version: '1.0', contact_email: null, identifier_names: [], buyers: 1 },
    ]);
    expect(await db.rows(`SELECT code FROM parse_issues WHERE file_kind = 'buyers.json' AND subject = 'cut.test' ORDER BY code`)).toEqual([{ code: 'INVALID_JSON' }]);
  });

  it('the ad_system_buyers view: who publishes one, and the buyer types listed', async () => {
    const rows = await db.rows(`SELECT ad_system_domain AS a, buyers_json_status AS status, publishes, buyers, map_keys(buyer_types) AS types, map_values(buyer_types) AS n FROM ad_system_buyers WHERE ad_system_domain <> 'big.test' ORDER BY a`);
    expect(rows).toEqual([
      { a: 'adx.test', status: 'ok', publishes: true, buyers: 4, types: ['AGENCY', '(none)', 'BRAND'], n: [2, 1, 1] },
      { a: 'cut.test', status: 'invalid_json', publishes: false, buyers: 1, types: ['DSP'], n: [1] },
      { a: 'none.test', status: 'not_found', publishes: false, buyers: 0, types: null, n: null },
    ]);
  });

  it('the report: which ad systems publish one, and the buyer types of the valid files', async () => {
    const dir = path.join(tempDir(), 'report');
    await buildReport({ roots: [out], outDir: dir });
    const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8'));
    const fig = (key: string) => report.sections.flatMap((s: { figures: { key: string }[] }) => s.figures).find((f: { key: string }) => f.key === key);
    expect(fig('sellers.buyers_json').rows.map((r: Record<string, unknown>) => [r.ad_system_domain, r.status, r.publishes, r.buyer_types])).toEqual([
      ['big.test', 'too_large', false, expect.stringMatching(/^DSP \d+$/)],
      ['adx.test', 'ok', true, 'AGENCY 2, (none) 1, BRAND 1'],
      ['cut.test', 'invalid_json', false, 'DSP 1'],
    ]);
    expect(fig('sellers.buyer_types').rows).toEqual([
      { buyer_type: 'AGENCY', buyers: 2, ad_systems: 1, confidential_share: 0.5 },
      { buyer_type: '(none)', buyers: 1, ad_systems: 1, confidential_share: 0 },
      { buyer_type: 'BRAND', buyers: 1, ad_systems: 1, confidential_share: 0 },
    ]);
  }, 60_000);
});
