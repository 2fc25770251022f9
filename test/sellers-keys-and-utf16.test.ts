import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSellersJson, SELLERS_ISSUE_CODES, SellersJsonParser, type Seller, type SellersIssue } from '../src/parse/sellers/index.js';
import { corpusPath, describeWithCorpus, repoRoot } from './helpers/corpus.js';

/** Duplicate and unknown keys in a seller entry are said, not passed over; UTF-16 is read. */

function chunked(bytes: Uint8Array, size: number) {
  const sellers: Seller[] = [];
  const issues: SellersIssue[] = [];
  const p = new SellersJsonParser({ onSeller: (s) => sellers.push(s), onIssue: (i) => issues.push(i) });
  for (let i = 0; i < bytes.length; i += size) p.push(bytes.subarray(i, i + size));
  return { sellers, issues, summary: p.end() };
}

const doc = (entries: string) => `{"version":"1.0","sellers":[\n${entries}\n]}`;
const codes = (issues: SellersIssue[]) => issues.map((i) => i.code);

describe('duplicate keys in a seller entry', () => {
  it('keeps the last value and reports DUPLICATE_KEY on the entry', () => {
    const r = parseSellersJson(doc('{"seller_id":"1","seller_type":"PUBLISHER","name":"First","domain":"a.com","name":"Second"}'));
    expect(r.sellers).toMatchObject([{ sellerId: '1', name: 'Second', domain: 'a.com' }]);
    expect(r.issues).toEqual([
      {
        lineNo: 2,
        severity: 'warning',
        code: 'DUPLICATE_KEY',
        message: '"name" is written 2 times in this entry; the last value is kept (as JSON.parse does)',
        lineText: '{"seller_id":"1","seller_type":"PUBLISHER","name":"First","domain":"a.com","name":"Second"}',
      },
    ]);
    expect(r.summary).toMatchObject({ status: 'ok', warnings: 1 });
  });

  it('one issue per repeated key, also for a key spelled with escapes; the id that counts is the last', () => {
    const r = parseSellersJson(doc('{"seller_id":"1","seller_type":"PUBLISHER","name":"n","domain":"a.com","seller_\\u0069d":"2","seller_id":"3","domain":"b.com"}'));
    expect(r.sellers.map((s) => [s.sellerId, s.domain])).toEqual([['3', 'b.com']]);
    expect(r.issues.map((i) => i.message)).toEqual([
      '"seller_id" is written 3 times in this entry; the last value is kept (as JSON.parse does)',
      '"domain" is written 2 times in this entry; the last value is kept (as JSON.parse does)',
    ]);
  });

  it('keys of nested objects, string values with `:` and the same key in two entries are not duplicates', () => {
    const r = parseSellersJson(
      doc(
        [
          '{"seller_id":"1","seller_type":"PUBLISHER","name":"a: b","domain":"a.com","comment":"see https://a.com/x","ext":{"name":"x","k":{"name":1}}}',
          '{"seller_id":"2","seller_type":"PUBLISHER","name":"a","domain":"b.com","ext":[{"id":1},{"id":2}]}',
        ].join(',\n'),
      ),
    );
    expect(r.sellers).toHaveLength(2);
    expect(r.issues).toEqual([]);
  });

  it('is found whatever the chunking (the scanner counts keys across chunks)', () => {
    const bytes = Buffer.from(doc('{"seller_id":"1","seller_type":"PUBLISHER","name":"a: b","name":"c","domain":"a.com","ext":{"k":1}}'));
    const whole = parseSellersJson(bytes);
    expect(codes(whole.issues)).toEqual(['DUPLICATE_KEY']);
    for (const size of [1, 2, 5, 13]) expect(chunked(bytes, size)).toEqual(whole);
  });

  it('one field under two spellings keeps the value written last and is a DUPLICATE_KEY too', () => {
    // canonicalSellerKey: `_`, `-` and spaces dropped, case folded (`sellerId`, `Seller-ID`, `SELLER ID` are seller_id).
    const r = parseSellersJson(doc('{"seller_id":"1","seller_type":"PUBLISHER","sellerId":"2","name":"n","domain":"a.com"}'));
    expect(r.sellers.map((s) => s.sellerId)).toEqual(['2']);
    expect(r.issues.filter((i) => i.code === 'DUPLICATE_KEY')).toEqual([
      {
        lineNo: 2,
        severity: 'warning',
        code: 'DUPLICATE_KEY',
        message: '"seller_id" is written 2 times in this entry (as "seller_id", "sellerId"); the last value is kept, as for a key written twice',
        lineText: '{"seller_id":"1","seller_type":"PUBLISHER","sellerId":"2","name":"n","domain":"a.com"}',
      },
    ]);
    expect(codes(r.issues)).toEqual(['NONSTANDARD_KEY', 'DUPLICATE_KEY']);
    // The other order, and spellings of other fields: still the last one written.
    const b = parseSellersJson(doc('{"SellerType":"PUBLISHER","seller_type":"INTERMEDIARY","Seller-ID":"9","seller_id":"3","domain":"a.com","Domain":"b.com","name":"n"}'));
    expect(b.sellers.map((s) => [s.sellerId, s.sellerType, s.domain])).toEqual([['3', 'INTERMEDIARY', 'b.com']]);
    expect(b.issues.filter((i) => i.code === 'DUPLICATE_KEY').map((i) => i.message)).toEqual([
      '"seller_type" is written 2 times in this entry (as "SellerType", "seller_type"); the last value is kept, as for a key written twice',
      '"seller_id" is written 2 times in this entry (as "Seller-ID", "seller_id"); the last value is kept, as for a key written twice',
      '"domain" is written 2 times in this entry (as "domain", "Domain"); the last value is kept, as for a key written twice',
    ]);
  });

  it('two spellings and a repeated key together: the text decides which is last, one issue for the field', () => {
    // JSON.parse puts "seller_id" (value "3") first among the keys, but it is written last.
    const r = parseSellersJson(doc('{"seller_id":"1","sellerId":"2","seller_id":"3","seller_type":"PUBLISHER","name":"n","domain":"a.com"}'));
    expect(r.sellers.map((s) => s.sellerId)).toEqual(['3']);
    const c = parseSellersJson(doc('{"seller_id":"1","seller_id":"3","sellerId":"2","seller_type":"PUBLISHER","name":"n","domain":"a.com"}'));
    expect(c.sellers.map((s) => s.sellerId)).toEqual(['2']);
    expect(c.issues.filter((i) => i.code === 'DUPLICATE_KEY').map((i) => i.message)).toEqual([
      '"seller_id" is written 3 times in this entry (as "seller_id", "sellerId"); the last value is kept, as for a key written twice',
    ]);
    // A numeric id beyond 2^53 is read from the text: the last one written too.
    const d = parseSellersJson(doc('{"seller_id":12345678901234567891,"seller_id":98765432109876543211,"seller_type":"PUBLISHER","name":"n","domain":"a.com"}'));
    expect(d.sellers.map((s) => s.sellerId)).toEqual(['98765432109876543211']);
  });

  it('a repeat inside `ext` is the extension\'s business, not the entry\'s', () => {
    const r = parseSellersJson(doc('{"seller_id":"1","seller_type":"PUBLISHER","name":"n","domain":"a.com","ext":{"k":1,"k":2}}'));
    expect(r.issues).toEqual([]);
  });
});

describe('unknown keys in a seller entry', () => {
  it('reports UNKNOWN_KEY once per key per file, at the first entry that has it', () => {
    const r = parseSellersJson(
      doc(
        [
          '{"seller_id":"1","seller_type":"PUBLISHER","name":"a","domain":"a.com","seller_domain":"a.com"}',
          '{"seller_id":"2","seller_type":"PUBLISHER","name":"b","domain":"b.com","seller_domain":"b.com","domian":"x"}',
        ].join(',\n'),
      ),
    );
    expect(r.sellers.map((s) => s.domain)).toEqual(['a.com', 'b.com']);
    expect(r.issues.map((i) => [i.lineNo, i.severity, i.code, i.message])).toEqual([
      [2, 'info', 'UNKNOWN_KEY', '"seller_domain" is not a sellers.json 1.0 seller field (extensions belong in "ext"); not read'],
      [3, 'info', 'UNKNOWN_KEY', '"domian" is not a sellers.json 1.0 seller field (extensions belong in "ext"); not read'],
    ]);
  });

  it('spec keys, `ext` and other spellings of spec keys are not unknown', () => {
    const r = parseSellersJson(doc('{"sellerId":"1","SellerType":"PUBLISHER","name":"a","domain":"a.com","comment":"c","is_passthrough":0,"ext":{}}'));
    expect(codes(r.issues)).toEqual(['NONSTANDARD_KEY', 'NONSTANDARD_KEY']);
  });
});

describe('UTF-16 sellers.json (BOM FF FE or FE FF, or no BOM)', () => {
  const text = '{"version":"1.0","contact_email":"ops@ex.com","sellers":[{"seller_id":"é1","seller_type":"PUBLISHER","name":"日本","domain":"a.jp"}]}';
  const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const utf16be = Buffer.from(utf16le);
  utf16be.swap16(); // FF FE → FE FF, and every code unit big-endian

  it.each([
    ['UTF-16LE', utf16le],
    ['UTF-16BE', utf16be],
  ])('%s is decoded and read like the UTF-8 file, with a UTF16_ENCODING info', (label, bytes) => {
    const utf8 = parseSellersJson(Buffer.from(text, 'utf8'));
    const r = parseSellersJson(bytes);
    expect(r.sellers).toEqual(utf8.sellers);
    expect(r.summary).toEqual({ ...utf8.summary, infos: 1 });
    expect(r.issues).toEqual([{ lineNo: null, severity: 'info', code: 'UTF16_ENCODING', message: `the body is ${label} (by its BOM); decoded, but UTF-8 is expected (RFC 8259 §8.1)`, lineText: null }]);
  });

  it('whatever the chunking, one byte at a time included', () => {
    const whole = parseSellersJson(utf16le);
    for (const size of [1, 2, 3, 7]) expect(chunked(utf16le, size)).toEqual(whole);
    expect(chunked(utf16be, 1)).toEqual(parseSellersJson(utf16be));
  });

  const spaced = `\r\n  ${text}`;
  it.each([
    ['UTF-16LE', text, Buffer.from(text, 'utf16le')],
    ['UTF-16BE', text, Buffer.from(text, 'utf16le').swap16()],
    ['UTF-16LE', spaced, Buffer.from(spaced, 'utf16le')],
    ['UTF-16BE', spaced, Buffer.from(spaced, 'utf16le').swap16()],
  ])('%s without a BOM is found by its NUL octets, decoded, and said with UTF16_ENCODING', (label, source, bytes) => {
    const utf8 = parseSellersJson(Buffer.from(source, 'utf8'));
    const r = parseSellersJson(bytes);
    expect(r.sellers).toEqual(utf8.sellers);
    expect(r.summary).toEqual({ ...utf8.summary, infos: 1 });
    expect(r.issues).toEqual([{ lineNo: null, severity: 'info', code: 'UTF16_ENCODING', message: `the body is ${label} (no BOM; by the NUL octets of its first characters); decoded, but UTF-8 is expected (RFC 8259 §8.1)`, lineText: null }]);
    for (const size of [1, 3]) expect(chunked(bytes, size)).toEqual(r);
  });

  it('no NUL beside the first character is no UTF-16: UTF-8 and other bodies are read as UTF-8', () => {
    expect(codes(parseSellersJson(Buffer.from(text, 'utf8')).issues)).toEqual([]);
    expect(codes(parseSellersJson(Buffer.from('\0\0\0{', 'latin1')).issues)).not.toContain('UTF16_ENCODING');
    expect(codes(parseSellersJson(Buffer.from([0xe9, 0x00])).issues)).not.toContain('UTF16_ENCODING');
  });

  it('a UTF-8 body and a one-byte body are read as before', () => {
    expect(chunked(Buffer.from(`\ufeff${text}`, 'utf8'), 1).summary.status).toBe('ok');
    expect(parseSellersJson(Buffer.from('{')).summary.status).toBe('invalid_json');
    expect(parseSellersJson(new Uint8Array(0)).summary.status).toBe('empty');
    expect(parseSellersJson(Buffer.from(' ')).issues.map((i) => i.message)).toEqual(['the body holds only whitespace']);
  });
});

describe('the reference "sellers.json" issue table (docs/reference/parse-issues.md)', () => {
  it('lists every code with its severity', () => {
    const page = readFileSync(path.join(repoRoot, 'docs', 'reference', 'parse-issues.md'), 'utf8');
    const section = page.slice(page.indexOf('## sellers.json'), page.indexOf('## robots.txt'));
    const rows = section.split('\n').filter((l) => l.startsWith('| `'));
    for (const [code, severity] of Object.entries(SELLERS_ISSUE_CODES)) {
      const row = rows.find((l) => l.includes(`\`${code}\``));
      expect(row, code).toBeDefined();
      expect(row!.split('|')[2]!.trim(), code).toBe(severity);
    }
  });
});

describeWithCorpus('corpus sellers.json files', () => {
  it('a real file re-encoded as UTF-16LE reads like the original', () => {
    const original = readFileSync(corpusPath('sellers', 'theaudiencestreet.com.json'));
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(original.toString('utf8'), 'utf16le')]);
    const a = parseSellersJson(original);
    const b = parseSellersJson(utf16);
    expect(b.sellers).toEqual(a.sellers);
    expect(b.sellers).toHaveLength(47);
    expect(codes(b.issues)).toEqual(['UTF16_ENCODING']);
  });

  it('the real files have no duplicate or unknown keys', () => {
    for (const f of ['admaru.com.json', 'adpixis.com.json', 'aloha-ads.com.json', 'google-ad-sense.github.io.json', 'millwoodcreative.com.json', 'theaudiencestreet.com.json']) {
      const found = codes(parseSellersJson(readFileSync(corpusPath('sellers', f))).issues).filter((c) => c === 'DUPLICATE_KEY' || c === 'UNKNOWN_KEY');
      expect(found, f).toEqual([]);
    }
  });
});
