import { describe, expect, it } from 'vitest';
import { AdsTxtParser, parseAdsTxt, type AdsFileKind } from '../src/parse/adstxt/index.js';

const ads = (text: string, fileKind: AdsFileKind = 'ads.txt') => parseAdsTxt(text, { fileKind });
/** Codes of the line-level issues (file-level ones such as EMPTY_FILE have lineNo null). */
const codes = (text: string, fileKind: AdsFileKind = 'ads.txt') =>
  ads(text, fileKind)
    .issues.filter((i) => i.lineNo !== null)
    .map((i) => i.code);

describe('ads.txt records (ads.txt 1.1 §3.2.2, §3.4.2)', () => {
  it('§4.1: a record with a certification authority id', () => {
    const r = ads('greenadexchange.com, XF7342, DIRECT, 5jyxf8k54\n');
    expect(r.records).toEqual([
      { lineNo: 1, adSystemDomain: 'greenadexchange.com', sellerAccountId: 'XF7342', relationship: 'DIRECT', certAuthorityId: '5jyxf8k54', extension: null },
    ]);
    expect(r.issues).toEqual([]);
    expect(r.summary.status).toBe('ok');
  });

  it('§4.2: the fourth field is optional (null when absent or empty)', () => {
    expect(ads('redssp.com, 57013, RESELLER').records[0]!.certAuthorityId).toBeNull();
    expect(ads('redssp.com, 57013, RESELLER,').records[0]!.certAuthorityId).toBeNull();
    expect(ads('redssp.com, 57013, RESELLER,  ').issues).toEqual([]);
  });

  it('§3.4.2: whitespace and tabs around fields are ignored; field 1 is lower-cased', () => {
    const r = ads(' \tGreenAdExchange.COM\t,\tXF7342 ,  DIRECT\t, 5jyxf8k54  ');
    expect(r.records[0]).toMatchObject({ adSystemDomain: 'greenadexchange.com', sellerAccountId: 'XF7342', certAuthorityId: '5jyxf8k54' });
  });

  it('§3.2.2: field 3 is case-insensitive and stored upper-cased', () => {
    const r = ads('a.com, 1, direct\nb.com, 2, ReSeLlEr\n');
    expect(r.records.map((x) => x.relationship)).toEqual(['DIRECT', 'RESELLER']);
    expect(r.issues).toEqual([]);
  });

  it('§3.2.2: another relationship is kept upper-cased with an UNKNOWN_RELATIONSHIP warning', () => {
    const r = ads('wrongvalue.org, 456, unknown');
    expect(r.records[0]!.relationship).toBe('UNKNOWN');
    expect(r.issues).toMatchObject([{ lineNo: 1, severity: 'warning', code: 'UNKNOWN_RELATIONSHIP', lineText: 'wrongvalue.org, 456, unknown' }]);
    expect(r.summary).toMatchObject({ records: 1, warnings: 1, errors: 0 });
  });

  it('§3.4.2: fewer than 3 non-empty fields is a TOO_FEW_FIELDS error and no record', () => {
    for (const line of ['tooshort.com,something', 'a.com,,DIRECT', 'a.com', 'a.com 123 DIRECT', ',,,']) {
      const r = ads(line);
      expect(r.records, line).toEqual([]);
      expect(r.issues.map((i) => [i.code, i.severity]), line).toEqual([
        ['TOO_FEW_FIELDS', 'error'],
        ['EMPTY_FILE', 'warning'],
      ]);
    }
  });

  it('§3.2.2: an empty required field among 3+ filled ones is an EMPTY_FIELD error', () => {
    const r = ads('a.com,,DIRECT,tag');
    expect(r.records).toEqual([]);
    expect(r.issues).toMatchObject([{ code: 'EMPTY_FIELD', severity: 'error', message: 'field 2 is empty' }, { code: 'EMPTY_FILE' }]);
  });

  it('§3.4.2: field 1 must be an RFC 1123 DNS name (INVALID_DOMAIN error)', () => {
    for (const d of ['green_ssp.com', 'https://google.com', 'google', '-a.com', 'a-.com', 'a..com', '1.2.3.4', 'a.123', 'a'.repeat(64) + '.com']) {
      const r = ads(`${d}, 1, DIRECT`);
      expect(r.records, d).toEqual([]);
      expect(codes(`${d}, 1, DIRECT`), d).toEqual(['INVALID_DOMAIN']);
    }
  });

  it('§3.4.2: IDN ad system domains are allowed and stored as lower-case punycode; a trailing dot is dropped', () => {
    expect(ads('Bücher.example, 1, DIRECT').records[0]!.adSystemDomain).toBe('xn--bcher-kva.example');
    expect(ads('google.com., 1, DIRECT').records[0]!.adSystemDomain).toBe('google.com');
  });

  it('§3.4.2 (spec-decisions): more than 4 fields keeps the first 4 with an EXTRA_FIELDS warning', () => {
    const r = ads('a.com, 1, DIRECT, tag, extra, more');
    expect(r.records[0]).toMatchObject({ certAuthorityId: 'tag', extension: null });
    expect(codes('a.com, 1, DIRECT, tag, extra')).toEqual(['EXTRA_FIELDS']);
    expect(codes('a.com, 1, DIRECT, tag,,')).toEqual([]); // trailing empty fields carry nothing
  });

  it('§3.4.2: whitespace inside the account id or certification id is a warning', () => {
    const r = ads('a.com, 12 34, DIRECT');
    expect(r.records[0]!.sellerAccountId).toBe('12 34');
    expect(r.issues.map((i) => i.code)).toEqual(['WHITESPACE_IN_FIELD']);
  });

  it('§3.4.3: the extension follows the first `;` and is kept trimmed', () => {
    const r = ads('a.com, 1, DIRECT, tag; k=v; more  ');
    expect(r.records[0]).toMatchObject({ certAuthorityId: 'tag', extension: 'k=v; more' });
    expect(ads('a.com, 1, DIRECT;').records[0]!.extension).toBeNull();
    // The `;` cuts the fields: what is after it is not a field.
    expect(codes('a.com, 1; DIRECT')).toEqual(['TOO_FEW_FIELDS']);
  });

  it('§3.2: every line end style ends a line; line numbers count CR, LF and CRLF', () => {
    const r = ads('a.com,1,DIRECT\rb.com,2,DIRECT\r\nc.com,3,DIRECT\nd.com,4,DIRECT');
    expect(r.records.map((x) => [x.lineNo, x.adSystemDomain])).toEqual([
      [1, 'a.com'],
      [2, 'b.com'],
      [3, 'c.com'],
      [4, 'd.com'],
    ]);
    expect(r.summary.lines).toBe(4);
  });
});

describe('comments (ads.txt 1.1 §3.4.1)', () => {
  it('`#` starts a comment anywhere on a line; comment-only and blank lines yield nothing', () => {
    const r = ads('# header\n\n   # indented\nmy.domain.com, 12345, DIRECT #Kiosked\nwebsite.org, my%20name,RESELLER,fafdf38b16bf6 # c, d, e\n');
    expect(r.records.map((x) => [x.lineNo, x.adSystemDomain, x.relationship, x.certAuthorityId])).toEqual([
      [4, 'my.domain.com', 'DIRECT', null],
      [5, 'website.org', 'RESELLER', 'fafdf38b16bf6'],
    ]);
    expect(r.issues).toEqual([]);
  });

  it('a `//` line is not a comment: it is an error line, never dropped silently', () => {
    expect(ads('// a.com, 1, DIRECT').issues.map((i) => i.code)).toEqual(['INVALID_DOMAIN', 'EMPTY_FILE']);
  });
});

describe('variables (ads.txt 1.1 §3.5, §3.5.1)', () => {
  it('§4.4: CONTACT lines are variables; names are case-insensitive and upper-cased; values trimmed', () => {
    const r = ads('contact=adops@example.com\n Contact =  http://example.com/contact-us  \n');
    expect(r.variables).toEqual([
      { lineNo: 1, name: 'CONTACT', value: 'adops@example.com', valueDomain: null, valueCountry: null },
      { lineNo: 2, name: 'CONTACT', value: 'http://example.com/contact-us', valueDomain: null, valueCountry: null },
    ]);
    expect(r.issues).toEqual([]);
  });

  it('a line is a variable only when the text before `=` is one token with no comma', () => {
    const r = ads('a.com, 1, DIRECT; k=v\nsome var=1\n');
    expect(r.records).toHaveLength(1);
    expect(r.variables).toEqual([]);
    expect(r.issues.map((i) => [i.lineNo, i.code])).toEqual([[2, 'TOO_FEW_FIELDS']]);
  });

  it('a `#` in the value starts a comment', () => {
    expect(ads('CONTACT=ads@example.com # ops').variables[0]!.value).toBe('ads@example.com');
  });

  it('§3.5.1: unknown variables are kept with an info issue', () => {
    const r = ads('contentproducerdomain=content_blue.com');
    expect(r.variables[0]).toMatchObject({ name: 'CONTENTPRODUCERDOMAIN', value: 'content_blue.com', valueDomain: null });
    expect(r.issues).toMatchObject([{ code: 'UNKNOWN_VARIABLE', severity: 'info' }]);
    expect(r.summary).toMatchObject({ status: 'ok', infos: 1 });
  });

  it('§3.5: an empty value is kept with a warning', () => {
    const r = ads('CONTACT=');
    expect(r.variables[0]!.value).toBe('');
    expect(r.issues.map((i) => i.code)).toEqual(['EMPTY_VARIABLE_VALUE']);
  });

  it('§4.5: SUBDOMAIN is listed in the summary with its lower-cased domain', () => {
    const r = ads('subdomain=DivisionOne.Example.com\nsubdomain=bad_sub.example.com\n');
    expect(r.variables.map((v) => v.valueDomain)).toEqual(['divisionone.example.com', null]);
    expect(r.summary.subdomains).toEqual([{ lineNo: 1, domain: 'divisionone.example.com' }]);
    expect(r.issues.map((i) => [i.lineNo, i.code])).toEqual([[2, 'INVALID_VARIABLE_DOMAIN']]);
  });

  it('app-ads.txt 1.0: SUBDOMAIN is ignored with a warning and not listed', () => {
    const r = ads('subdomain=divisionone.example.com', 'app-ads.txt');
    expect(r.variables).toHaveLength(1);
    expect(r.summary.subdomains).toEqual([]);
    expect(r.issues).toMatchObject([{ code: 'SUBDOMAIN_IN_APP_ADS', severity: 'warning' }]);
  });

  it('§4.6: INVENTORYPARTNERDOMAIN referrals are listed in file order (also from app-ads.txt)', () => {
    const r = ads('ssp.com, vwxyz, DIRECT\ninventorypartnerdomain=programmerA.com\nINVENTORYPARTNERDOMAIN = b.example\n', 'app-ads.txt');
    expect(r.summary.inventoryPartnerDomains).toEqual([
      { lineNo: 2, domain: 'programmera.com' },
      { lineNo: 3, domain: 'b.example' },
    ]);
  });

  it('§3.5.1 OWNERDOMAIN: only the first counts; later ones are warned', () => {
    const r = ads('OWNERDOMAIN=MediaCompany.com\nownerdomain=other.com\n');
    expect(r.summary.ownerDomain).toBe('mediacompany.com');
    expect(r.variables.map((v) => v.valueDomain)).toEqual(['mediacompany.com', 'other.com']);
    expect(r.issues.map((i) => [i.lineNo, i.code])).toEqual([[2, 'DUPLICATE_OWNERDOMAIN']]);
  });

  it('§3.5.1 OWNERDOMAIN should be PSL+1, not a host name', () => {
    expect(codes('OWNERDOMAIN=www.example.co.uk')).toEqual(['NOT_REGISTRABLE_DOMAIN']);
    expect(codes('OWNERDOMAIN=example.co.uk')).toEqual([]);
  });

  it('§4.8 MANAGERDOMAIN: domain and optional ISO 3166-1 alpha-2 country', () => {
    const r = ads('MANAGERDOMAIN=yellowmediamanager.com, fr\nMANAGERDOMAIN=bluemediamanager.com, US\nmanagerdomain=global.com\n');
    expect(r.variables.map((v) => [v.value, v.valueDomain, v.valueCountry])).toEqual([
      ['yellowmediamanager.com, fr', 'yellowmediamanager.com', 'FR'],
      ['bluemediamanager.com, US', 'bluemediamanager.com', 'US'],
      ['global.com', 'global.com', null],
    ]);
    expect(r.issues).toEqual([]);
  });

  it('§3.5.1 MANAGERDOMAIN: one global and one per country; others warned', () => {
    const r = ads('MANAGERDOMAIN=a.com\nMANAGERDOMAIN=b.com\nMANAGERDOMAIN=c.com, US\nMANAGERDOMAIN=d.com, us\nMANAGERDOMAIN=e.com, DE\n');
    expect(r.issues.map((i) => [i.lineNo, i.code])).toEqual([
      [2, 'DUPLICATE_MANAGERDOMAIN'],
      [4, 'DUPLICATE_MANAGERDOMAIN'],
    ]);
  });

  it('§3.5.1 MANAGERDOMAIN: bad countries and extra parts are warned', () => {
    const r = ads('MANAGERDOMAIN=a.com, UK\nMANAGERDOMAIN=b.com, DE, x\n');
    expect(r.variables.map((v) => v.valueCountry)).toEqual([null, 'DE']);
    expect(r.issues.map((i) => [i.lineNo, i.code])).toEqual([
      [1, 'INVALID_COUNTRY'],
      [2, 'EXTRA_FIELDS'],
    ]);
  });
});

describe('file status (ads.txt 1.1 §3.2.1, §4.9)', () => {
  it('the placeholder record alone makes the file `placeholder`', () => {
    const r = ads('placeholder.example.com, placeholder, DIRECT, placeholder\n');
    expect(r.summary.status).toBe('placeholder');
    expect(r.records).toHaveLength(1);
    expect(ads('# none\nplaceholder.example.com, placeholder, DIRECT, placeholder\ncontact=x@y.z\n').summary.status).toBe('placeholder');
  });

  it('the placeholder beside real records is `ok` with a warning', () => {
    const r = ads('placeholder.example.com, placeholder, DIRECT, placeholder\na.com, 1, DIRECT\n');
    expect(r.summary.status).toBe('ok');
    expect(r.issues).toMatchObject([{ code: 'PLACEHOLDER_WITH_RECORDS', lineNo: 1 }]);
  });

  it('no record and no variable is `empty` (deprecated meaning), with an EMPTY_FILE warning', () => {
    for (const body of ['', '\n\n', '# only a comment\n', 'bad line\n']) {
      const r = ads(body);
      expect(r.summary.status, JSON.stringify(body)).toBe('empty');
      expect(r.issues.at(-1)).toMatchObject({ code: 'EMPTY_FILE', lineNo: null, lineText: null });
    }
  });

  it('a file with only variables is `ok`', () => {
    expect(ads('inventorypartnerdomain=a.com').summary.status).toBe('ok');
  });

  it('summary counts every severity, lines and bytes', () => {
    const body = 'a.com, 1, DIRECT\nb.com, 2, OTHER\nbad\nfoo=bar\n';
    expect(ads(body).summary).toMatchObject({ status: 'ok', records: 2, variables: 1, errors: 1, warnings: 1, infos: 1, lines: 4, bytes: body.length });
  });
});

describe('issues', () => {
  it('line_text is the line as written, at most 256 characters', () => {
    const long = 'x'.repeat(300) + ', 1';
    const r = ads(long);
    expect(r.issues[0]!.lineText).toBe(long.slice(0, 256));
  });

  it('a line’s warnings follow its record', () => {
    const events: string[] = [];
    const p = new AdsTxtParser({ onRecord: () => events.push('record'), onIssue: (i) => events.push(i.code) }, { fileKind: 'ads.txt' });
    p.push(new TextEncoder().encode('a.com, 1, OTHER, x, y\n'));
    p.end();
    expect(events).toEqual(['record', 'UNKNOWN_RELATIONSHIP', 'EXTRA_FIELDS']);
  });
});
