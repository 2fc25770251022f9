import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseSellersJson } from '../src/parse/sellers/index.js';
import { corpusPath, describeWithCorpus } from './helpers/corpus.js';

// Expected statuses and entry counts from corpus/MANIFEST.tsv notes.
const files: [string, string, number][] = [
  ['admaru.com.json', 'ok', 45],
  ['adpixis.com.json', 'ok', 13],
  ['aloha-ads.com.json', 'ok', 101],
  ['google-ad-sense.github.io.json', 'ok', 1],
  ['millwoodcreative.com.json', 'ok', 86],
  ['theaudiencestreet.com.json', 'ok', 47],
  ['bikeindex.org.json', 'not_sellers_json', 0],
  ['somuchgames-fragment-not-json.json', 'invalid_json', 0],
];

describeWithCorpus('sellers.json corpus (real files)', () => {
  it.each(files)('%s → %s, %i sellers', (file, status, count) => {
    const r = parseSellersJson(readFileSync(corpusPath('sellers', file)));
    expect(r.summary.status).toBe(status);
    expect(r.summary.sellers).toBe(count);
    if (status === 'ok') {
      // Same entries, in the same order, as a whole-document JSON.parse.
      const doc = JSON.parse(readFileSync(corpusPath('sellers', file), 'utf8'));
      expect(r.sellers.map((s) => s.sellerId)).toEqual(doc.sellers.map((s: { seller_id: unknown }) => String(s.seller_id)));
      expect(r.summary.version).not.toBeNull();
    }
  });

  it('vandelay-media.com.json: broken header JSON → invalid_json, and the sellers after the break are still read', () => {
    const r = parseSellersJson(readFileSync(corpusPath('sellers', 'vandelay-media.com.json')));
    expect(r.summary.status).toBe('invalid_json');
    expect(r.summary.sellers).toBe(28);
    expect(r.summary.contactEmail).toBe('support@vandelay-media.com');
    expect(r.issues[0]).toMatchObject({ code: 'INVALID_JSON', lineNo: 6 });
  });

  it('bikeindex.org.json: a publisher-side camelCase single-seller object is named as such', () => {
    const r = parseSellersJson(readFileSync(corpusPath('sellers', 'bikeindex.org.json')));
    expect(r.issues.find((i) => i.code === 'MISSING_SELLERS')!.message).toMatch(/single seller object/);
  });

  it('admaru.com.json: "email"/"address" keys are read as contacts with NONSTANDARD_KEY; version 1.0 kept as written', () => {
    const r = parseSellersJson(readFileSync(corpusPath('sellers', 'admaru.com.json')));
    expect(r.summary).toMatchObject({ contactEmail: 'contact@admaru.com', version: '1.0' });
    expect(r.issues.filter((i) => i.code === 'NONSTANDARD_KEY')).toHaveLength(2);
  });

  it('theaudiencestreet.com.json: a clean file has no issues', () => {
    expect(parseSellersJson(readFileSync(corpusPath('sellers', 'theaudiencestreet.com.json'))).issues).toEqual([]);
  });

  it('aloha-ads.com.json: names in the domain field and duplicate ids are flagged', () => {
    const codes = parseSellersJson(readFileSync(corpusPath('sellers', 'aloha-ads.com.json'))).issues.map((i) => i.code);
    expect(codes).toContain('INVALID_DOMAIN');
    expect(codes).toContain('DUPLICATE_SELLER_ID');
  });
});
