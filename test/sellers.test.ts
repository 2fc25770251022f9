import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sellerRow } from '../src/tables/rows.js';
import { parseSellersJson, SellersJsonParser, type Seller, type SellersIssue } from '../src/parse/sellers/index.js';
import { kind } from '../src/cli/parse-kinds/sellers.js';
import { CompactStringSet } from '../src/util/compact-string-set.js';
import { repoRoot } from './helpers/corpus.js';

const enc = new TextEncoder();
const samplesDir = path.join(repoRoot, 'data-samples/sellers');

/** Parses `bytes` pushed in chunks that end at the given offsets. */
function parseChunked(bytes: Uint8Array, cuts: number[]) {
  const sellers: Seller[] = [];
  const issues: SellersIssue[] = [];
  const p = new SellersJsonParser({ onSeller: (s) => sellers.push(s), onIssue: (i) => issues.push(i) });
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    p.push(bytes.subarray(at, cut));
    at = cut;
  }
  return { sellers, issues, summary: p.end() };
}

describe('sellers.json data samples (data-samples/sellers/*.json vs *.expected.json)', () => {
  const inputs = readdirSync(samplesDir).filter((f) => f.endsWith('.json') && !f.endsWith('.expected.json'));
  it('has samples', () => expect(inputs.length).toBeGreaterThanOrEqual(8));
  it.each(inputs)('%s', (file) => {
    const bytes = readFileSync(path.join(samplesDir, file));
    const expected = JSON.parse(readFileSync(path.join(samplesDir, file.replace(/\.json$/, '.expected.json')), 'utf8'));
    const r = parseSellersJson(bytes);
    expect(r.summary).toEqual(expected.summary);
    expect(r.sellers).toEqual(expected.sellers);
    expect(r.issues.map((i) => ({ lineNo: i.lineNo, severity: i.severity, code: i.code }))).toEqual(expected.issues);
  });
});

describe('streaming: results do not depend on how the bytes are chunked', () => {
  it.each(['valid.json', 'violations.json', 'broken-header.json', 'camelcase-keys.json', 'truncated.json'])('%s split at every byte', (file) => {
    const bytes = new Uint8Array(readFileSync(path.join(samplesDir, file)));
    const whole = parseSellersJson(bytes);
    for (let cut = 1; cut < bytes.length; cut++) {
      const r = parseChunked(bytes, [cut]);
      expect(r.summary, `cut at ${cut}`).toEqual(whole.summary);
      expect(r.sellers, `cut at ${cut}`).toEqual(whole.sellers);
      expect(r.issues, `cut at ${cut}`).toEqual(whole.issues);
    }
  });

  it('one byte per chunk: multi-byte UTF-8, escapes and a BOM survive', () => {
    const doc = '\ufeff{"version":"1.0","sellers":[{"seller_id":"é\\"\\\\ü","seller_type":"PUBLISHER","name":"日本語 \\u00e9","domain":"a.jp"}]}';
    const bytes = enc.encode(doc);
    const r = parseChunked(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1));
    expect(r.summary.status).toBe('ok');
    expect(r.sellers[0]).toMatchObject({ sellerId: 'é"\\ü', name: '日本語 é', domain: 'a.jp' });
  });

  it('sellers are handed over as soon as their entry closes, before the end of the input', () => {
    const seen: string[] = [];
    const p = new SellersJsonParser({ onSeller: (s) => seen.push(s.sellerId!) });
    p.push(enc.encode('{"version":"1.0","sellers":[{"seller_id":"1","seller_type":"BOTH","name":"A","domain":"a.com"},'));
    expect(seen).toEqual(['1']);
    p.push(enc.encode('{"seller_id":"2","seller_type":"BOTH","name":"B","domain":"b.com"}]}'));
    expect(seen).toEqual(['1', '2']);
    expect(p.end().status).toBe('ok');
  });
});

describe('sellers.json 1.0 parent object', () => {
  it('version written as a number is kept as written, with a warning', () => {
    const r = parseSellersJson('{"version": 1.0, "sellers": []}');
    expect(r.summary.version).toBe('1.0');
    expect(r.issues.map((i) => i.code)).toEqual(['VERSION_NOT_STRING']);
    expect(r.summary.status).toBe('empty');
  });

  it('a missing version is a warning; a missing sellers array makes it not a sellers.json', () => {
    const r = parseSellersJson('{"contact_email":"a@b.c"}');
    expect(r.summary.status).toBe('not_sellers_json');
    expect(r.issues.map((i) => i.code).sort()).toEqual(['MISSING_SELLERS', 'MISSING_VERSION']);
    expect(r.summary.contactEmail).toBe('a@b.c');
  });

  it('sellers that is not an array', () => {
    const r = parseSellersJson('{"version":"1.0","sellers":{"seller_id":"1"}}');
    expect(r.summary.status).toBe('not_sellers_json');
    expect(r.issues.map((i) => i.code)).toEqual(['SELLERS_NOT_ARRAY']);
  });

  it('empty and whitespace-only bodies are status empty', () => {
    expect(parseSellersJson('').summary.status).toBe('empty');
    expect(parseSellersJson(' \n\t').summary.status).toBe('empty');
    expect(parseSellersJson('').issues.map((i) => i.code)).toEqual(['EMPTY_FILE']);
  });

  it('ext and unknown members are allowed and ignored', () => {
    const r = parseSellersJson('{"version":"1.0","ext":{"deep":[1,{"x":"]}"}]},"sellers":[{"seller_id":"1","seller_type":"PUBLISHER","name":"A","domain":"a.com","ext":{"k":[]}}]}');
    expect(r.summary.status).toBe('ok');
    expect(r.issues).toEqual([]);
  });
});

describe('sellers.json 1.0 Seller object checks', () => {
  const one = (entry: string) => parseSellersJson(`{"version":"1.0","sellers":[${entry}]}`);

  it('seller_type is upper-cased; unknown values are kept with an error', () => {
    expect(one('{"seller_id":"1","seller_type":"both","name":"A","domain":"a.com"}').sellers[0]!.sellerType).toBe('BOTH');
    const bad = one('{"seller_id":"1","seller_type":"Agency","name":"A","domain":"a.com"}');
    expect(bad.sellers[0]!.sellerType).toBe('AGENCY');
    expect(bad.issues.map((i) => [i.code, i.severity])).toEqual([['INVALID_SELLER_TYPE', 'error']]);
  });

  it('a numeric seller_id beyond 2^53 keeps all its digits', () => {
    const r = one('{"seller_id": 123456789012345678901, "seller_type":"BOTH","name":"A","domain":"a.com"}');
    expect(r.sellers[0]!.sellerId).toBe('123456789012345678901');
    expect(r.issues.map((i) => i.code)).toEqual(['SELLER_ID_NOT_STRING']);
    expect(one('{"seller_id": 1.5e3, "seller_type":"BOTH","name":"A","domain":"a.com"}').sellers[0]!.sellerId).toBe('1500');
  });

  it('a missing seller_type is an error', () => {
    expect(one('{"seller_id":"1","name":"A","domain":"a.com"}').issues.map((i) => i.code)).toEqual(['MISSING_SELLER_TYPE']);
  });

  it('duplicate seller ids are reported on every repeat', () => {
    const r = parseSellersJson(`{"version":"1.0","sellers":[${Array(3).fill('{"seller_id":"7","seller_type":"PUBLISHER","name":"A","domain":"a.com"}').join(',')}]}`);
    expect(r.sellers).toHaveLength(3);
    expect(r.issues.map((i) => i.code)).toEqual(['DUPLICATE_SELLER_ID', 'DUPLICATE_SELLER_ID']);
  });

  it('flags accept 0/1; booleans and "0"/"1" are read with a warning; other values are dropped', () => {
    const r = one('{"seller_id":"1","seller_type":"INTERMEDIARY","is_confidential":0,"is_passthrough":"1","name":"A","domain":"a.com"}');
    expect(r.sellers[0]).toMatchObject({ isConfidential: false, isPassthrough: true });
    expect(r.issues.map((i) => i.code)).toEqual(['INVALID_FLAG']);
    expect(one('{"seller_id":"1","seller_type":"BOTH","is_confidential":2}').sellers[0]!.isConfidential).toBeNull();
  });

  it('a confidential seller needs neither name nor domain', () => {
    expect(one('{"seller_id":"1","seller_type":"PUBLISHER","is_confidential":1}').issues).toEqual([]);
  });

  it('domains are lower-cased; URLs and names are flagged INVALID_DOMAIN', () => {
    const r = one('{"seller_id":"1","seller_type":"PUBLISHER","name":"A","domain":" Site.COM "}');
    expect(r.sellers[0]!.domain).toBe('site.com');
    for (const d of ['https://site.com/', 'site.com/', 'Scripps Media Inc', 'localhost']) {
      expect(one(`{"seller_id":"1","seller_type":"PUBLISHER","name":"A","domain":${JSON.stringify(d)}}`).issues.map((i) => i.code), d).toEqual(['INVALID_DOMAIN']);
    }
  });

  it('an entry that is not valid JSON is skipped with an error, and reading goes on', () => {
    const r = parseSellersJson('{"version":"1.0","sellers":[{"seller_id":"1",,},{"seller_id":"2","seller_type":"BOTH","name":"B","domain":"b.com"}]}');
    expect(r.sellers.map((s) => s.sellerId)).toEqual(['2']);
    expect(r.issues.map((i) => i.code)).toEqual(['INVALID_SELLER_JSON']);
    expect(r.summary.status).toBe('invalid_json');
  });

  it('a missing comma between entries is reported and both entries are read', () => {
    const r = parseSellersJson('{"version":"1.0","sellers":[{"seller_id":"1","seller_type":"BOTH","name":"A","domain":"a.com"}\n{"seller_id":"2","seller_type":"BOTH","name":"B","domain":"b.com"}]}');
    expect(r.sellers.map((s) => s.sellerId)).toEqual(['1', '2']);
    expect(r.issues.map((i) => [i.code, i.lineNo])).toEqual([['INVALID_JSON', 2]]);
  });

  it('an oversized entry is skipped without being held in memory', () => {
    const big = `{"seller_id":"1","seller_type":"BOTH","name":"${'x'.repeat(5000)}","domain":"a.com"}`;
    const r = parseSellersJson(`{"version":"1.0","sellers":[${big},{"seller_id":"2","seller_type":"BOTH","name":"B","domain":"b.com"}]}`, { maxEntryChars: 1000 });
    expect(r.sellers.map((s) => s.sellerId)).toEqual(['2']);
    expect(r.issues.map((i) => i.code)).toEqual(['VALUE_TOO_LARGE']);
  });

  it('issues are listed at most maxIssuesPerCode times per code, and all are counted', () => {
    const entries = Array.from({ length: 50 }, (_, i) => `{"seller_id":${i},"seller_type":"PUBLISHER","name":"A","domain":"a${i}.com"}`);
    const r = parseSellersJson(`{"version":"1.0","sellers":[${entries.join(',')}]}`, { maxIssuesPerCode: 5 });
    expect(r.sellers).toHaveLength(50);
    expect(r.summary.warnings).toBe(50);
    expect(r.issues.filter((i) => i.code === 'SELLER_ID_NOT_STRING')).toHaveLength(5);
    expect(r.issues.at(-1)).toMatchObject({ code: 'MORE_ISSUES_NOT_LISTED', severity: 'info', message: expect.stringContaining('45 more SELLER_ID_NOT_STRING') });
  });

  it('line_text is the entry on one line, at most 256 characters', () => {
    const r = one(`{\n "seller_id": "1",\n "seller_type": "X",\n "name": "${'n'.repeat(400)}",\n "domain": "a.com"\n}`);
    expect(r.issues[0]!.lineText!.length).toBe(256);
    expect(r.issues[0]!.lineText).toMatch(/^\{ "seller_id": "1", "seller_type": "X"/);
  });
});

describe('sellers table rows and the parse kind', () => {
  it('sellerRow maps a Seller to the sellers table columns', () => {
    const s = parseSellersJson(readFileSync(path.join(samplesDir, 'valid.json'))).sellers[1]!;
    expect(sellerRow('exchange.example', s)).toEqual({
      ad_system_domain: 'exchange.example',
      seller_id: 'net-2',
      seller_type: 'INTERMEDIARY',
      name: 'Reseller "Quoted" Ltd',
      domain: 'reseller.co.uk',
      is_confidential: null,
      is_passthrough: true,
      comment: null,
    });
  });

  it('contract §1 NDJSON: sellers first, then issues, then a summary with version and contacts', async () => {
    async function* body() {
      const bytes = readFileSync(path.join(samplesDir, 'violations.json'));
      for (let i = 0; i < bytes.length; i += 100) yield new Uint8Array(bytes.subarray(i, i + 100));
    }
    const events = [];
    for await (const e of kind.events(body(), 'sellers.json')) events.push(e);
    const types = events.map((e) => e.type);
    expect(types.lastIndexOf('seller')).toBeLessThan(types.indexOf('issue'));
    expect(types.filter((t) => t === 'seller')).toHaveLength(9);
    expect(events[0]).toEqual({ type: 'seller', seller_id: '1001', seller_type: 'PUBLISHER', name: 'Numeric Id', domain: 'numeric.com', is_confidential: null, is_passthrough: null, comment: null, line_no: 4 });
    expect(events.at(-1)).toMatchObject({ type: 'summary', status: 'ok', sellers: 9, errors: 3, version: '1.0', contact_email: null, contact_address: null });
    expect(events.find((e) => e.type === 'issue')).toEqual({ type: 'issue', line_no: 2, severity: 'warning', code: 'VERSION_NOT_STRING', message: expect.any(String), line_text: null });
  });
});

describe('CompactStringSet (duplicate seller ids in flat memory)', () => {
  it('reports repeats exactly across growth, for 200k distinct ids', () => {
    const set = new CompactStringSet();
    for (let i = 0; i < 200_000; i++) expect(set.add(`pub-${i}`)).toBe(true);
    expect(set.size).toBe(200_000);
    let repeats = 0;
    for (let i = 0; i < 200_000; i += 7) if (!set.add(`pub-${i}`)) repeats++;
    expect(repeats).toBe(Math.ceil(200_000 / 7));
    expect(set.add('')).toBe(true);
    expect(set.add('')).toBe(false);
    expect(set.add('pub-1 ')).toBe(true);
  });
});

describe('adsnap parse --kind sellers.json (CLI, real binary)', () => {
  it('prints NDJSON: sellers, then issues, then the summary; exit 0 even for broken JSON', () => {
    const bin = path.join(repoRoot, 'bin/adsnap.js');
    const r = spawnSync(process.execPath, [bin, 'parse', '--kind', 'sellers.json', '--format', 'ndjson', path.join(samplesDir, 'broken-header.json')], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual(['seller', 'seller', 'issue', 'issue', 'summary']);
    expect(events[0]).toMatchObject({ seller_id: 'x1', domain: 'first.com', line_no: 7 });
    expect(events.at(-1)).toMatchObject({ status: 'invalid_json', sellers: 2, version: '1.0', contact_email: 'support@broken.example', contact_address: null });
  });
});

describe('the sellers.json header (sellers_files)', () => {
  const header = { contact_email: 'ads@x.test', contact_address: '1 Main St', version: '1.0', identifiers: [{ name: 'TAG-ID', value: 'abc123' }, { name: 'DUNS', value: '01-234-5678' }], ext: { network: { id: 7 }, note: 'n' } };
  const sellers = [{ seller_id: '1', seller_type: 'PUBLISHER', name: 'One', domain: 'one.test' }];
  it.each([
    ['before the sellers array', { ...header, sellers }],
    ['after the sellers array', { sellers, ...header }],
  ])('is read whole %s, without the array in memory', (_where, doc) => {
    const { summary } = parseSellersJson(JSON.stringify(doc));
    expect(summary).toMatchObject({
      status: 'ok',
      sellers: 1,
      version: '1.0',
      contactEmail: 'ads@x.test',
      contactAddress: '1 Main St',
      identifiers: [{ name: 'TAG-ID', value: 'abc123' }, { name: 'DUNS', value: '01-234-5678' }],
      ext: '{"network":{"id":7},"note":"n"}',
    });
  });

  it('keeps at most 1,000 identifiers and says so', () => {
    const identifiers = Array.from({ length: 1500 }, (_, i) => ({ name: 'ID', value: String(i) }));
    const { summary, issues } = parseSellersJson(JSON.stringify({ version: '1.0', identifiers, sellers }));
    expect(summary.identifiers.length).toBe(1000);
    expect(issues.filter((i) => i.code === 'VALUE_TOO_LARGE').map((i) => i.message)).toEqual(['more than 1000 identifiers: the rest are not kept']);
  });
});
