/**
 * Google's robots.txt conformance data (corpus/conformance): the 400 robotstxt-spec-test
 * expectations and the 145 robots_test.cc vectors, plus the helper vectors, in both readings.
 * `google` must pass every case. `rfc` must pass every case except the deliberate deviations
 * below, each one a place where RFC 9309 §2.2.2 says otherwise
 * (docs/reference/robots-semantics.md lists them).
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { escapeGooglePattern, isValidProductToken, normalisePattern, parseRobotsTxt, pathFromUrl, RobotsMatcher, type RobotsSemantics } from '../src/parse/robots/index.js';
import { corpusPath, describeWithCorpus, hasCorpus } from './helpers/corpus.js';

interface Case {
  robotstxt: string | null;
  robotstxt_base64: string;
  useragent: string;
  url: string;
  expected_allowed: boolean;
  source: string;
  note?: string;
}

/** Deviations, keyed `file#index`; the reasons are in docs/reference/robots.md (conformance) and docs/reference/robots-semantics.md. */
const DEVIATIONS: Record<string, string> = {
  // RFC 9309 §2.2.2: non-ASCII octets in the URI MUST be percent-encoded before comparison, so a raw `ツ` equals `%E3%83%84`.
  'spec#non-ascii-paths.textproto tests[1].test_expectations[1]': 'rfc-encode-non-ascii',
  'spec#non-ascii-paths.textproto tests[2].test_expectations[1]': 'rfc-encode-non-ascii',
  'vectors#63 ID_Encoding': 'rfc-encode-non-ascii', // Allow: /foo/bar/ツ, URL /foo/bar/ツ
  'vectors#65 ID_Encoding': 'rfc-encode-non-ascii', // Allow: /foo/bar/%E3%83%84, URL /foo/bar/ツ
  // RFC 9309 §2.2.2 and Figure 4: a percent-encoded unreserved octet (`%62` = `b`) is decoded before comparison.
  'spec#non-ascii-paths.textproto tests[3].test_expectations[0]': 'rfc-decode-unreserved',
  'vectors#66 ID_Encoding': 'rfc-decode-unreserved', // Allow: /foo/bar/%62%61%7A, URL /foo/bar/baz
  // Google-only: `Allow: /x/index.html` also allows `/x/`. RFC 9309 §2.2.2 matches octets only.
  'spec#index-page.textproto tests[0].test_expectations[0]': 'google-index-html',
  'vectors#78 GoogleOnly_IndexHTMLisDirectory': 'google-index-html', // URL /allowed-slash/
  // RFC 9309 §2.2.2: "The /robots.txt URI is implicitly allowed"; these stress cases expect `Disallow: /` to cover it.
  'spec#327748.textproto tests[0].test_expectations[5]': 'rfc-robots-txt-allowed',
  'spec#369883.textproto tests[0].test_expectations[5]': 'rfc-robots-txt-allowed',
  'spec#369883.textproto tests[0].test_expectations[9]': 'rfc-robots-txt-allowed',
  'spec#860237.textproto tests[0].test_expectations[9]': 'rfc-robots-txt-allowed',
};

function load(file: string): { cases: Case[] } & Record<string, unknown> {
  return JSON.parse(readFileSync(corpusPath('conformance', file), 'utf8')) as { cases: Case[] } & Record<string, unknown>;
}

function body(c: { robotstxt: string | null; robotstxt_base64: string }): Uint8Array {
  return Buffer.from(c.robotstxt_base64, 'base64');
}

function verdict(c: Case, semantics: RobotsSemantics): boolean {
  return RobotsMatcher.compile(parseRobotsTxt(body(c)), { semantics }).check(c.useragent, c.url).allowed;
}

function keyOf(set: 'spec' | 'vectors', c: Case, index: number): string {
  if (set === 'spec') return `spec#${c.source.split('/').pop()}`;
  // robots_test.cc vectors have no ids of their own: their index in the data file names them.
  return `vectors#${index} ${/TEST\(RobotsUnittest, (\w+)\)/.exec(c.source)?.[1] ?? c.source}`;
}

describeWithCorpus('Google robotstxt-spec-test (400 expectations)', () => {
  const data = hasCorpus ? load('google-robotstxt-spec-test-cases.json') : { cases: [] };
  it('has 400 cases', () => expect(data.cases).toHaveLength(400));
  it.each(data.cases.map((c, i) => [i, c.source.split('/').pop(), c] as const))('#%i %s', (_i, _name, c) => {
    const deviation = DEVIATIONS[keyOf('spec', c, _i)];
    expect(verdict(c, 'google')).toBe(c.expected_allowed);
    expect(verdict(c, 'rfc')).toBe(deviation ? !c.expected_allowed : c.expected_allowed);
  });
});

describeWithCorpus('Google robots_test.cc vectors', () => {
  const data = hasCorpus ? load('google-robotstxt-robots_test-vectors.json') : { cases: [] };
  it('has 145 cases', () => expect(data.cases).toHaveLength(145));
  it.each(data.cases.map((c, i) => [i, /TEST\(RobotsUnittest, (\w+)\)/.exec(c.source)?.[1], c] as const))('#%i %s', (_i, _name, c) => {
    const deviation = DEVIATIONS[keyOf('vectors', c, _i)];
    expect(verdict(c, 'google')).toBe(c.expected_allowed);
    expect(verdict(c, 'rfc')).toBe(deviation ? !c.expected_allowed : c.expected_allowed);
  });

  it('ID_VerifyValidUserAgentsToObey: product tokens (RFC 9309 §2.2.1)', () => {
    const cases = data.valid_user_agent as { useragent: string | null; expected_valid: boolean }[];
    expect(cases).toHaveLength(10);
    for (const c of cases) expect([c.useragent, isValidProductToken(c.useragent)]).toEqual([c.useragent, c.expected_valid]);
  });

  it('line counting, BOM handling and sitemap extraction (parse_stats)', () => {
    type Stat = { robotstxt_base64: string; expected_valid_directives?: number; expected_unknown_directives?: number; expected_last_line_seen?: number; expected_sitemap?: string; label?: string };
    const cases = data.parse_stats as Stat[];
    expect(cases).toHaveLength(12);
    for (const c of cases) {
      const txt = parseRobotsTxt(Buffer.from(c.robotstxt_base64, 'base64'));
      const label = c.label ?? '';
      if (c.expected_valid_directives !== undefined) expect([label, txt.directiveLines]).toEqual([label, c.expected_valid_directives]);
      if (c.expected_unknown_directives !== undefined) expect([label, txt.unknownLines]).toEqual([label, c.expected_unknown_directives]);
      if (c.expected_last_line_seen !== undefined) expect([label, txt.lines]).toEqual([label, c.expected_last_line_seen]);
      if (c.expected_sitemap !== undefined) expect(txt.sitemaps.map((s) => s.url)).toEqual([c.expected_sitemap]);
    }
  });

  it('URL → path, params and query (get_path_params_query)', () => {
    const cases = data.get_path_params_query as { url: string; expected_path: string }[];
    expect(cases).toHaveLength(19);
    for (const c of cases) expect([c.url, pathFromUrl(c.url)]).toEqual([c.url, c.expected_path]);
  });

  it('pattern escaping (maybe_escape_pattern): non-ASCII encoded, %xx upper-cased', () => {
    const cases = data.maybe_escape_pattern as { pattern: string; expected: string }[];
    expect(cases).toHaveLength(4);
    for (const c of cases) {
      const octets = Buffer.from(c.pattern, 'utf8').toString('latin1');
      expect(normalisePattern(octets)).toBe(c.expected);
      expect(escapeGooglePattern(octets)).toBe(c.expected);
    }
  });
});

describeWithCorpus('deviations', () => {
  it('each listed deviation names a real case', () => {
    const spec = load('google-robotstxt-spec-test-cases.json').cases.map((c, i) => keyOf('spec', c, i));
    const vectors = load('google-robotstxt-robots_test-vectors.json').cases.map((c, i) => keyOf('vectors', c, i));
    const all = new Set([...spec, ...vectors]);
    for (const k of Object.keys(DEVIATIONS)) expect(all.has(k), k).toBe(true);
    // 8 of 400 spec-test expectations and 4 of 145 robots_test.cc vectors, no more.
    expect(Object.keys(DEVIATIONS).filter((k) => k.startsWith('spec#'))).toHaveLength(8);
    expect(Object.keys(DEVIATIONS).filter((k) => k.startsWith('vectors#'))).toHaveLength(4);
  });
});
