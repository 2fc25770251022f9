import { describe, expect, it } from 'vitest';
import { parseRobotsTxt, RobotsParser, robotsRuleRows, ROBOTS_MAX_LINE_OCTETS, type RobotsTxt } from '../src/parse/robots/index.js';

function chunked(bytes: Uint8Array, size: number): RobotsTxt {
  const p = new RobotsParser();
  for (let i = 0; i < bytes.length; i += size) p.push(bytes.subarray(i, i + size));
  return p.end();
}

const codes = (t: RobotsTxt) => t.issues.map((i) => i.code);

describe('robots.txt parser: groups (RFC 9309 §2.1, §2.2.1)', () => {
  const txt = parseRobotsTxt(
    ['# comment', 'Disallow: /early', 'User-agent: a', 'User-agent: b # two agents', 'Crawl-delay: 5', 'Disallow: /x', 'Allow: /x/y', '', 'Sitemap: https://h/s.xml', 'User-agent: c', 'disallow:', 'Host: h.example'].join('\n'),
  );

  it('consecutive user-agent lines share a group; a rule ends the list; other records do not', () => {
    expect(txt.groups.map((g) => [g.groupNo, g.userAgents, g.lineNo])).toEqual([
      [1, ['a', 'b'], 3],
      [2, ['c'], 10],
    ]);
    expect(txt.groups[0]!.rules.map((r) => [r.directive, r.path, r.lineNo])).toEqual([
      ['disallow', '/x', 6],
      ['allow', '/x/y', 7],
    ]);
    expect(txt.groups[1]!.rules).toEqual([{ directive: 'disallow', path: '', lineNo: 11, pattern: '', octets: '' }]);
  });

  it('§2.2.2: a rule before any user-agent line is ignored and reported', () => {
    expect(txt.issues.find((i) => i.code === 'RULE_OUTSIDE_GROUP')).toMatchObject({ lineNo: 2, severity: 'warning', lineText: 'Disallow: /early' });
  });

  it('§2.2.4: sitemap and other records are kept as data', () => {
    expect(txt.sitemaps).toEqual([{ url: 'https://h/s.xml', lineNo: 9 }]);
    expect(txt.others).toEqual([
      { name: 'crawl-delay', value: '5', lineNo: 5 },
      { name: 'host', value: 'h.example', lineNo: 12 },
    ]);
    expect(txt.status).toBe('ok');
    expect(txt.lines).toBe(12);
  });

  it('flattens to one robots_rules row per (rule, user agent)', () => {
    expect(robotsRuleRows(txt).map((r) => `${r.groupNo}:${r.userAgent}:${r.directive}:${r.path}`)).toEqual(['1:a:disallow:/x', '1:b:disallow:/x', '1:a:allow:/x/y', '1:b:allow:/x/y', '2:c:disallow:']);
  });

  it('a user-agent after rules opens a new group even with a sitemap between (§2.2.4)', () => {
    const t = parseRobotsTxt('user-agent: a\nsitemap: /s\nuser-agent: b\ndisallow: /\nuser-agent: c\n');
    expect(t.groups.map((g) => g.userAgents)).toEqual([['a', 'b'], ['c']]);
  });
});

describe('robots.txt parser: lenient keys and lines (Google spec; RFC 9309 §2.3.1.5)', () => {
  it('accepts the misspellings Google accepts, case-insensitively, and notes them', () => {
    const t = parseRobotsTxt('USER AGENT: a\nDissallow: /1\ndisalow: /2\nuseragent: b\nALLOW: /3\nsite-map: https://h/s\n');
    expect(t.groups.map((g) => g.userAgents)).toEqual([['a'], ['b']]);
    expect(t.groups.flatMap((g) => g.rules.map((r) => `${r.directive} ${r.path}`))).toEqual(['disallow /1', 'disallow /2', 'allow /3']);
    expect(t.sitemaps.map((s) => s.url)).toEqual(['https://h/s']);
    expect(codes(t).filter((c) => c === 'KEY_TYPO')).toHaveLength(5);
  });

  it('accepts a missing colon only for exactly two words', () => {
    const t = parseRobotsTxt('user-agent foo\ndisallow /x\ndisallow /y z\n');
    expect(t.groups[0]!.rules.map((r) => r.path)).toEqual(['/x']);
    expect(codes(t)).toEqual(['MISSING_COLON', 'MISSING_COLON', 'INVALID_LINE']);
  });

  it('strips comments anywhere and whitespace around key and value', () => {
    const t = parseRobotsTxt('  User-agent :\t* # all\n\tDisallow :  /a b  #c\n#only a comment\n');
    expect(t.groups[0]).toMatchObject({ userAgents: ['*'], rules: [{ path: '/a b', pattern: '/a%20b' }] });
    expect(t.issues).toEqual([]);
  });

  it('reports user-agent values that are not product tokens (§2.2.1)', () => {
    const t = parseRobotsTxt('user-agent: Googlebot/2.1\nuser-agent:\ndisallow: /\n');
    expect(t.issues.map((i) => [i.code, i.message])).toEqual([
      ['USER_AGENT_NOT_TOKEN', "not a product token (RFC 9309 §2.2.1); matched as 'googlebot'"],
      ['EMPTY_USER_AGENT', 'user-agent with no value matches no crawler'],
    ]);
  });

  it('keeps unknown word keys as data (info) and drops non-word keys (warning)', () => {
    const t = parseRobotsTxt('user-agent: *\nnoai: yes\n<a href="x">: y\n');
    expect(t.others).toEqual([{ name: 'noai', value: 'yes', lineNo: 2 }]);
    expect(t.issues.map((i) => [i.lineNo, i.severity, i.code])).toEqual([
      [2, 'info', 'UNKNOWN_DIRECTIVE'],
      [3, 'warning', 'INVALID_LINE'],
    ]);
    expect(t.unknownLines).toBe(2);
  });

  it('flags a path that cannot match (§2.2: path-pattern starts with "/")', () => {
    expect(codes(parseRobotsTxt('user-agent: *\ndisallow: fish/\n'))).toEqual(['PATH_NOT_ABSOLUTE']);
  });
});

describe('robots.txt parser: bytes, line ends and limits', () => {
  const text = 'User-agent: a\r\nDisallow: /x\rAllow: /y\n\r\nSitemap: https://h/ツ\r\n';

  it('CR, LF and CRLF each end one line, whatever the chunking (also CRLF split across chunks)', () => {
    const whole = parseRobotsTxt(text);
    expect(whole.lines).toBe(5);
    expect(whole.sitemaps).toEqual([{ url: 'https://h/ツ', lineNo: 5 }]);
    const bytes = Buffer.from(text, 'utf8');
    for (const size of [1, 2, 3, 7]) expect(chunked(bytes, size)).toEqual(whole);
  });

  it('skips a UTF-8 BOM, also pushed one byte at a time', () => {
    const bytes = Buffer.from('\ufeffUser-agent: a\nDisallow: /\n', 'utf8');
    const t = chunked(bytes, 1);
    expect(t.groups[0]!.userAgents).toEqual(['a']);
    expect(t.issues).toEqual([]);
  });

  it('decodes a UTF-16 body (RFC 9309 §2.2.2: MAY bridge encoding mismatches) and says so', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('User-agent: *\r\nDisallow: /ü\r\n', 'utf16le')]);
    const t = chunked(le, 3);
    expect(t.groups[0]!.rules[0]).toMatchObject({ path: '/ü', pattern: '/%C3%BC' });
    expect(codes(t)).toEqual(['UTF16_DECODED']);
  });

  it('keeps the octets of non-UTF-8 paths for matching and notes invalid UTF-8 once', () => {
    const t = parseRobotsTxt(Buffer.from('User-agent: *\nDisallow: /caf\xe9\nDisallow: /\xff\n', 'latin1'));
    expect(t.groups[0]!.rules.map((r) => r.pattern)).toEqual(['/caf%E9', '/%FF']);
    expect(codes(t)).toEqual(['INVALID_UTF8']);
  });

  it('RFC 9309 §2.5: parses at most 500 KiB, drops the cut line and reports truncation', () => {
    const line = 'Disallow: /' + 'a'.repeat(88) + '\n'; // 100 bytes
    const body = Buffer.from('User-agent: *\n' + line.repeat(6000)); // ~600 KB
    const t = chunked(body, 4096);
    expect(t.truncated).toBe(true);
    expect(t.bytes).toBe(body.length);
    const kept = 500 * 1024 - 14;
    expect(t.groups[0]!.rules).toHaveLength(Math.floor(kept / 100));
    expect(t.issues.at(-1)).toMatchObject({ lineNo: null, code: 'PARSE_LIMIT', severity: 'warning' });
  });

  it('honours a custom maxBytes and validates it once', () => {
    expect(parseRobotsTxt('User-agent: *\nDisallow: /\n', { maxBytes: 14 }).groups[0]!.rules).toEqual([]);
    expect(() => new RobotsParser({ maxBytes: -1 })).toThrow(TypeError);
  });

  it('cuts a line at 16,663 octets like the reference', () => {
    const t = parseRobotsTxt('User-agent: *\nDisallow: /' + 'x'.repeat(20000) + '\n');
    expect(t.groups[0]!.rules[0]!.path).toHaveLength(ROBOTS_MAX_LINE_OCTETS - 'Disallow: '.length);
    expect(codes(t)).toEqual(['LINE_TOO_LONG']);
  });

  it('status: empty file, comments only, HTML page', () => {
    expect(parseRobotsTxt('').status).toBe('empty');
    expect(parseRobotsTxt('# nothing\n\n').status).toBe('empty');
    const html = parseRobotsTxt('<!DOCTYPE html>\n<html><body>Not found</body></html>\n');
    expect(html.status).toBe('html');
    expect(codes(html)).toContain('HTML_BODY');
  });

  it('caps line issues per file so an HTML page cannot flood parse_issues', () => {
    const t = parseRobotsTxt('<p>\n'.repeat(1000));
    expect(t.issues.filter((i) => i.lineNo !== null)).toHaveLength(200);
    expect(t.issues.find((i) => i.code === 'ISSUES_CAPPED')?.message).toBe('800 more line issues not listed');
  });

  it('rejects push after end', () => {
    const p = new RobotsParser();
    p.end();
    expect(() => p.push(new Uint8Array(1))).toThrow();
  });
});
