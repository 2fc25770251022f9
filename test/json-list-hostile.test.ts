import { describe, expect, it } from 'vitest';
import { BuyersJsonParser } from '../src/parse/buyers/index.js';
import { MAX_IDENTIFIERS } from '../src/parse/json-list/types.js';
import { SellersJsonParser } from '../src/parse/sellers/index.js';

/**
 * sellers.json and buyers.json are read by one parser (src/parse/json-list/), each kind a
 * declaration: the same hostile input gives the same status and the same issues in both, up to
 * the kind's own names (its list key, its status for "no list", its codes for the list and an entry).
 */
interface Parsed {
  entries: number;
  codes: string[];
  messages: string[];
  summary: { status: string; version: string | null; identifiers: unknown[] };
}

interface ListParser {
  push(bytes: Uint8Array): void;
  pushText(text: string): void;
  end(): Parsed['summary'];
}

interface Kind {
  name: string;
  list: string;
  id: string;
  notList: string;
  codes: Record<string, string>;
  /** A parser of this kind, counting entries and keeping issues into `into`. */
  make(into: Parsed): ListParser;
}

/** Parses `input` whole, or (`byteByByte`) pushed one byte at a time. */
function parse(k: Kind, input: string | Uint8Array, byteByByte = false): Parsed {
  const into: Parsed = { entries: 0, codes: [], messages: [], summary: { status: '', version: null, identifiers: [] } };
  const p = k.make(into);
  if (typeof input === 'string') p.pushText(input);
  else if (byteByByte) for (let i = 0; i < input.length; i++) p.push(input.subarray(i, i + 1));
  else p.push(input);
  into.summary = p.end();
  return into;
}

/** Counts entries and keeps issues into `into`; `onEntry` under the kind's own handler name. */
const handler = (into: Parsed) => ({
  onEntry: () => void into.entries++,
  onIssue: (i: { code: string; message: string }) => {
    into.codes.push(i.code);
    into.messages.push(i.message);
  },
});

const KINDS: Kind[] = [
  {
    name: 'sellers.json',
    list: 'sellers',
    id: 'seller_id',
    notList: 'not_sellers_json',
    codes: { MISSING_LIST: 'MISSING_SELLERS', LIST_NOT_ARRAY: 'SELLERS_NOT_ARRAY', ENTRY_NOT_JSON: 'INVALID_SELLER_JSON', ENTRY_NOT_OBJECT: 'SELLER_NOT_OBJECT' },
    make: (into) => {
      const { onEntry, onIssue } = handler(into);
      return new SellersJsonParser({ onSeller: onEntry, onIssue });
    },
  },
  {
    name: 'buyers.json',
    list: 'buyers',
    id: 'buyer_id',
    notList: 'not_buyers_json',
    codes: { MISSING_LIST: 'MISSING_BUYERS', LIST_NOT_ARRAY: 'BUYERS_NOT_ARRAY', ENTRY_NOT_JSON: 'INVALID_JSON', ENTRY_NOT_OBJECT: 'BUYER_NOT_OBJECT' },
    make: (into) => {
      const { onEntry, onIssue } = handler(into);
      return new BuyersJsonParser({ onBuyer: onEntry, onIssue });
    },
  },
];

/** `$LIST` is the kind's list key, `$ID` its id field; `expect.codes` in the kind's own names (`@MISSING_LIST` …). */
const CASES: { what: string; input: string; status: string; entries: number; codes: string[] }[] = [
  { what: 'a numeric version', input: '{"version":1.0,"$LIST":[]}', status: 'empty', entries: 0, codes: ['VERSION_NOT_STRING'] },
  { what: 'top-level keys in camelCase and other cases', input: '{"Version":"1.0","contactEmail":"a@b.test","$LIST":[{"$ID":"1"}]}', status: 'ok', entries: 1, codes: ['NONSTANDARD_KEY', 'NONSTANDARD_KEY'] },
  { what: 'the list key in capitals', input: '{"version":"1.0","$CAPLIST":[{"$ID":"1"}]}', status: 'ok', entries: 1, codes: ['NONSTANDARD_KEY'] },
  { what: 'an empty body', input: '', status: 'empty', entries: 0, codes: ['EMPTY_FILE'] },
  { what: 'whitespace only', input: ' \n\t ', status: 'empty', entries: 0, codes: ['EMPTY_FILE'] },
  { what: 'an HTML page', input: '<!doctype html><p>gone</p>', status: 'html', entries: 0, codes: ['HTML_BODY'] },
  { what: 'a top-level array', input: '[{"$ID":"1"}]', status: '$NOT_LIST', entries: 0, codes: ['NOT_AN_OBJECT'] },
  { what: 'no list', input: '{"version":"1.0"}', status: '$NOT_LIST', entries: 0, codes: ['@MISSING_LIST'] },
  { what: 'the list not an array', input: '{"version":"1.0","$LIST":{}}', status: '$NOT_LIST', entries: 0, codes: ['@LIST_NOT_ARRAY'] },
  { what: 'no version', input: '{"$LIST":[{"$ID":"1"}]}', status: 'ok', entries: 1, codes: ['MISSING_VERSION'] },
  { what: 'a cut body', input: '{"version":"1.0","$LIST":[{"$ID":"1"},{"$ID":"2', status: 'invalid_json', entries: 1, codes: ['INVALID_JSON'] },
  { what: 'a broken entry among good ones', input: '{"version":"1.0","$LIST":[{"$ID":"1"},{"$ID":01},{"$ID":"3"}]}', status: 'invalid_json', entries: 2, codes: ['@ENTRY_NOT_JSON'] },
  { what: 'an entry that is no object', input: '{"version":"1.0","$LIST":[7,{"$ID":"1"}]}', status: 'ok', entries: 1, codes: ['@ENTRY_NOT_OBJECT'] },
  { what: 'a missing comma between entries', input: '{"version":"1.0","$LIST":[{"$ID":"1"} {"$ID":"2"}]}', status: 'invalid_json', entries: 2, codes: ['INVALID_JSON'] },
  { what: 'a trailing comma', input: '{"version":"1.0","$LIST":[{"$ID":"1"},]}', status: 'invalid_json', entries: 1, codes: ['INVALID_JSON'] },
  { what: 'garbage before the list, then the list', input: '{"version":"1.0",!!!,"$LIST":[{"$ID":"1"}]}', status: 'invalid_json', entries: 1, codes: ['INVALID_JSON'] },
  { what: 'data after the document', input: '{"version":"1.0","$LIST":[{"$ID":"1"}]} x', status: 'invalid_json', entries: 1, codes: ['INVALID_JSON'] },
  { what: 'a field written twice', input: '{"version":"1.0","$LIST":[{"$ID":"1","$ID":"2"}]}', status: 'ok', entries: 1, codes: ['DUPLICATE_KEY'] },
  { what: 'an unknown entry key, noted once', input: '{"version":"1.0","$LIST":[{"$ID":"1","zz":1},{"$ID":"2","zz":2}]}', status: 'ok', entries: 2, codes: ['UNKNOWN_KEY'] },
  { what: 'identifiers not an array', input: '{"version":"1.0","identifiers":"x","$LIST":[]}', status: 'empty', entries: 0, codes: ['INVALID_FIELD_TYPE'] },
  { what: 'a contact of the wrong type', input: '{"version":"1.0","contact_email":5,"$LIST":[]}', status: 'empty', entries: 0, codes: ['INVALID_FIELD_TYPE'] },
];

/** The issue codes a kind's own entry reader adds for an entry with only an id (sellers.json wants a type and a name). */
const ENTRY_ONLY_ID: Record<string, string[]> = {
  'sellers.json': ['MISSING_SELLER_TYPE', 'MISSING_NAME', 'MISSING_DOMAIN'],
  'buyers.json': [],
};

function fill(s: string, k: Kind): string {
  return s
    .replaceAll('$CAPLIST', k.list.toUpperCase())
    .replaceAll('$LIST', k.list)
    .replaceAll('$ID', k.id)
    .replaceAll('$NOT_LIST', k.notList)
    .replace(/^@([A-Z_]+)$/, (_, c: string) => k.codes[c]!);
}

describe('sellers.json and buyers.json: one parser, the same answer to the same hostile input', () => {
  for (const c of CASES) {
    it.each(KINDS)(`${c.what} ($name)`, (k) => {
      const r = parse(k, fill(c.input, k));
      expect(r.summary.status).toBe(fill(c.status, k));
      expect(r.entries).toBe(c.entries);
      // The entry reader's own codes (an id-only entry lacks sellers.json's required fields) aside.
      const own = new Set(ENTRY_ONLY_ID[k.name]);
      expect(r.codes.filter((code) => !own.has(code))).toEqual(c.codes.map((code) => fill(code, k)));
      // Bytes streamed one at a time give the same answer.
      expect(parse(k, new TextEncoder().encode(fill(c.input, k)), true).codes).toEqual(r.codes);
    });
  }

  it.each(KINDS)('more identifiers than are kept is an issue, never a silent cut ($name)', (k) => {
    const ids = Array.from({ length: MAX_IDENTIFIERS + 5 }, (_, i) => ({ name: 'TAG-ID', value: String(i) }));
    const r = parse(k, JSON.stringify({ version: '1.0', identifiers: ids, [k.list]: [] }));
    expect(r.summary.identifiers.length).toBe(MAX_IDENTIFIERS);
    expect(r.codes).toEqual(['VALUE_TOO_LARGE']);
    expect(r.messages[0]).toBe(`more than ${MAX_IDENTIFIERS} identifiers: the rest are not kept`);
  });

  it.each(KINDS)('a numeric version is kept as written ($name)', (k) => {
    const r = parse(k, `{"version": 1.0, "${k.list}": []}`);
    expect(r.summary.version).toBe('1.0');
    expect(r.summary).toMatchObject({ warnings: 1, errors: 0 });
  });

  it.each(KINDS)('a single entry object at the top level is named as such ($name)', (k) => {
    const r = parse(k, `{"version":"1.0","${k.id.replace('_id', 'Id')}":"1"}`);
    expect(r.summary.status).toBe(k.notList);
    expect(r.messages.at(-1)).toBe(`the document is a single ${k.list.slice(0, -1)} object, not a ${k.name} with a "${k.list}" array`);
  });
});
