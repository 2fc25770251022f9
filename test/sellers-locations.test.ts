import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { AdsTxtParser } from '../src/parse/adstxt/index.js';
import { LineCounter } from '../src/text/line-count.js';
import { intermediaryToFetch, planNextRound, sellerDomainHost } from '../src/resolve/intermediaries.js';
import { checkLocation, defaultSellersUrl, parseLocationFlag, parseLocationTable, SellersLocations, shippedLocationsFile } from '../src/resolve/sellers-location.js';
import { corpusDir, hasCorpus, repoRoot } from './helpers/corpus.js';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

describe('where ad systems publish sellers.json', () => {
  it('the shipped table: google.com → realtimebidding.google.com, each entry with its source', async () => {
    const text = await readFile(shippedLocationsFile(), 'utf8');
    const table = parseLocationTable(text, 'shipped', true);
    expect(table.get('google.com')).toEqual(['https://realtimebidding.google.com/sellers.json', 'https://storage.googleapis.com/adx-rtb-dictionaries/sellers.json']);
    expect(table.get('sovrn.com')).toEqual(['https://lijit.com/sellers.json']);
    // Every entry names its source and its kind (the parser refuses the shipped table otherwise).
    const kinds = text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')[3]);
    expect(new Set(kinds)).toEqual(new Set(['ad system', 'third party']));
    const locations = await SellersLocations.load();
    // The spec's location first, always; then the table's, in its order.
    expect(locations.candidatesFor('google.com')).toEqual(['https://google.com/sellers.json', 'https://realtimebidding.google.com/sellers.json', 'https://storage.googleapis.com/adx-rtb-dictionaries/sellers.json']);
    expect(locations.candidatesFor('ssp.example')).toEqual(['https://ssp.example/sellers.json']);
    expect(locations.base).toMatchObject({ file: 'data/sellers-locations.tsv', entries: kinds.length });
  });

  it('overrides win over the table; ad systems are normalised; bad entries name where they are', async () => {
    const locations = await SellersLocations.load({ 'google.com': 'https://mirror.example/sellers.json', 'ssp.example': 'https://cdn.ssp.example/s.json' });
    expect(locations.candidatesFor('google.com')).toEqual(['https://google.com/sellers.json', 'https://mirror.example/sellers.json']);
    expect(locations.candidatesFor('ssp.example')).toEqual(['https://ssp.example/sellers.json', 'https://cdn.ssp.example/s.json']);
    expect(parseLocationFlag('SSP.Example=https://cdn.ssp.example/s.json#x')).toEqual(['ssp.example', 'https://cdn.ssp.example/s.json']);
    expect(() => parseLocationFlag('ssp.example')).toThrow(/AD_SYSTEM=URL/);
    expect(() => checkLocation('ssp.example', 'ftp://x.example/s.json', 'here')).toThrow(/here: .* not an http\(s\) URL/);
    expect(() => checkLocation('ssp.example', 'https://u:p@x.example/s.json', 'here')).toThrow(/credentials/);
    expect(() => checkLocation('not a domain', 'https://x.example/s.json', 'here')).toThrow(/not an ad system domain/);
    expect(parseLocationTable('a.example\thttps://a.example/x.json\na.example\thttps://b.example/x.json\n', 'f.tsv').get('a.example')).toEqual(['https://a.example/x.json', 'https://b.example/x.json']);
    expect(() => parseLocationTable('a.example\thttps://a.example/x.json\na.example\thttps://a.example/x.json\n', 'f.tsv')).toThrow(/f.tsv:2: a.example https:\/\/a.example\/x.json is listed twice/);
    expect(() => parseLocationTable('a.example\thttps://a.example/sellers.json\n', 'f.tsv')).toThrow(/f.tsv:1: .* is the spec's location/);
    expect(() => parseLocationTable('a.example\thttps://a.example/x.json\n', 'f.tsv', true)).toThrow(/f.tsv:1: .*source/);
    expect(() => parseLocationTable('a.example\thttps://a.example/x.json\tdocs\n', 'f.tsv', true)).toThrow(/f.tsv:1: the kind of source must be 'ad system' or 'third party'/);
    expect(() => parseLocationTable('just-one-field\n', 'f.tsv')).toThrow(/f.tsv:1: expected/);
    expect(defaultSellersUrl('ssp.example')).toBe('https://ssp.example/sellers.json');
  });
});

/** The macro from sql/views.sql, loaded as `adsnap sql` loads it (over an empty root), run by DuckDB on the same inputs. */
async function sqlHosts(inputs: (string | null)[]): Promise<(string | null)[]> {
  const db = await openSnapshotDb(mkdtempSync(path.join(tmpdir(), 'adsnap-hosts-')), { allowEmpty: true });
  try {
    const out: (string | null)[] = [];
    for (const v of inputs) {
      const r = await db.connection.runAndReadAll('SELECT adsnap_host($1::VARCHAR) AS h', [v]);
      out.push((r.getRowObjectsJS()[0] as { h: string | null }).h);
    }
    return out;
  } finally {
    db.close();
  }
}

describe('intermediaries: the host an entry names (the crawl and the SQL views agree)', () => {
  const samples = [
    'midreseller.com', 'https://MidReseller.com/', 'http://midreseller.com:8080/path?q#f', 'MIDRESELLER.COM.', ' midreseller.com ',
    '\tmidreseller.com\n', 'midreseller.com/', 'www.midreseller.com', 'midreseller.com:443', 'HTTPS://PUB1.TEST/about',
    'Mid Reseller Inc', '', '   ', 'https://', 'mailto:x@y.com', '//cdn.example.com/x', 'ex.com?x=1', 'ex.com#frag', 'münchen.de', null,
  ];

  it('sellerDomainHost reduces as documented', () => {
    expect(sellerDomainHost('https://MidReseller.com/')).toBe('midreseller.com');
    expect(sellerDomainHost('http://midreseller.com:8080/path?q#f')).toBe('midreseller.com');
    expect(sellerDomainHost('MIDRESELLER.COM.')).toBe('midreseller.com');
    expect(sellerDomainHost('   ')).toBeNull();
    expect(sellerDomainHost(null)).toBeNull();
  });

  it('adsnap_host (sql/views.sql) gives the same answer as sellerDomainHost on every sample', async () => {
    expect(await sqlHosts(samples)).toEqual(samples.map(sellerDomainHost));
  });

  it('only INTERMEDIARY and BOTH entries name a sellers.json, and only a DNS name is asked', () => {
    expect(intermediaryToFetch('INTERMEDIARY', 'https://MidReseller.com/')).toBe('midreseller.com');
    expect(intermediaryToFetch('BOTH', 'midreseller.com')).toBe('midreseller.com');
    expect(intermediaryToFetch('PUBLISHER', 'midreseller.com')).toBeNull();
    expect(intermediaryToFetch('INTERMEDIARY', 'Mid Reseller Inc')).toBeNull();
    expect(intermediaryToFetch('INTERMEDIARY', '10.0.0.1')).toBeNull();
    expect(intermediaryToFetch('INTERMEDIARY', 'localhost')).toBeNull();
    expect(intermediaryToFetch('INTERMEDIARY', null)).toBeNull();
  });

  it('the next round: named and not fetched yet, sorted, cut to the bound', () => {
    expect(planNextRound(['c.com', 'a.com', 'b.com', 'a.com'], new Set(['b.com']), 10)).toEqual({ list: ['a.com', 'c.com'], notFetched: 0 });
    expect(planNextRound(['c.com', 'a.com', 'b.com'], new Set(), 2)).toEqual({ list: ['a.com', 'b.com'], notFetched: 1 });
    expect(planNextRound(['a.com'], new Set(), 0)).toEqual({ list: [], notFetched: 1 });
  });
});

function countLines(chunks: (string | Uint8Array)[]): number {
  const c = new LineCounter();
  for (const x of chunks) c.push(typeof x === 'string' ? Buffer.from(x, 'latin1') : x);
  return c.end();
}

describe('files.lines: physical lines of a text body', () => {
  it('CR, LF and CRLF each end one line, a final line without a line end counts, a BOM is no content', () => {
    expect(countLines([])).toBe(0);
    expect(countLines(['a'])).toBe(1);
    expect(countLines(['a\n'])).toBe(1);
    expect(countLines(['a\nb'])).toBe(2);
    expect(countLines(['\n'])).toBe(1);
    expect(countLines(['a\r\nb\r\n'])).toBe(2);
    expect(countLines(['a\r', '\nb'])).toBe(2); // CRLF split across chunks
    expect(countLines(['a\r\r\n'])).toBe(2);
    expect(countLines(['a\rb\rc'])).toBe(3);
    expect(countLines(['\xef\xbb\xbf'])).toBe(0);
    expect(countLines(['\xef', '\xbb', '\xbfa\nb'])).toBe(2);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\r\nb\nc', 'utf16le')]);
    expect(countLines([utf16])).toBe(3);
    expect(countLines([...utf16].map((b) => Uint8Array.of(b)))).toBe(3); // byte by byte
    // U+0A0D holds an LF and a CR byte: in UTF-16 it is one character, no line end.
    expect(countLines([Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from([0x0a, 0x0d, 0x00, 0x0a])])])).toBe(1);
  });

  it.skipIf(!hasCorpus)('the same count as the ads.txt parser\'s lines on every corpus file, whole and in 7-byte chunks', () => {
    let files = 0;
    for (const dir of ['adstxt', 'app-ads']) {
      for (const f of readdirSync(path.join(corpusDir, dir))) {
        const bytes = readFileSync(path.join(corpusDir, dir, f));
        const parser = new AdsTxtParser({ onRecord() {}, onVariable() {}, onIssue() {} }, { fileKind: 'ads.txt' });
        parser.push(bytes);
        const want = parser.end().lines;
        expect(countLines([bytes]), f).toBe(want);
        const chunks: Uint8Array[] = [];
        for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7));
        expect(countLines(chunks), f).toBe(want);
        files++;
      }
    }
    expect(files).toBeGreaterThan(20);
  });
});
