import { describe, expect, it } from 'vitest';
import { checkPolicy, DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS, normaliseUrlPath, parseRobotsTxt, RobotsMatcher, robotsAccess, robotsPolicy, rulesPolicy, verdicts } from '../src/parse/robots/index.js';

const compile = (text: string) => RobotsMatcher.compile(parseRobotsTxt(text));

describe('RFC 9309 §5.1 simple example', () => {
  const m = compile(`User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot
`);
  it.each([
    ['otherbot', '/x.gif', false, 2],
    ['otherbot', '/x.gif?y', true, null],
    ['otherbot', '/example/a', false, 3],
    ['otherbot', '/publications/a', true, 4],
    ['foobot', '/a', false, 7],
    ['FOOBOT', '/example/page.html', true, 8],
    ['foobot', '/example/allowed.gif', true, 9],
    ['barbot', '/example/page.html', false, 13],
    ['bazbot', '/example/page.html', false, 13],
    ['bazbot', '/x.gif', true, null],
    ['quxbot', '/example/a', true, null],
  ])('%s %s → %s (line %s)', (ua, path, allowed, line) => {
    expect(m.check(ua, `https://www.example.com${path}`)).toEqual({ allowed, matchedLine: line });
  });
});

describe('RFC 9309 §2.2.1 group choice', () => {
  it('merges every group naming the agent (Figure 2)', () => {
    const m = compile('user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n');
    expect(['/foo', '/bar', '/baz', '/qux'].map((p) => m.check('examplebot', p).allowed)).toEqual([false, false, false, true]);
  });
  it('falls back to * only when no group names the agent (Figure 3); a named group without rules allows all', () => {
    const m = compile('user-agent: *\ndisallow: /foo\n\nuser-agent: BazBot\ndisallow: /baz\n\nuser-agent: EmptyBot\n');
    expect(m.check('ExampleBot', '/foo').allowed).toBe(false);
    expect(m.check('BazBot', '/foo').allowed).toBe(true);
    expect(m.check('EmptyBot', '/foo').allowed).toBe(true);
    expect(m.hasGroupFor('emptybot')).toBe(true);
  });
  it('matches a group on its leading token characters, case-insensitively', () => {
    const m = compile('user-agent: Googlebot/2.1 (+http://x)\ndisallow: /g\nuser-agent: *\ndisallow: /\n');
    expect(m.check('googlebot', '/a').allowed).toBe(true);
    expect(m.check('GOOGLEBOT', '/g').allowed).toBe(false);
    expect(m.check('Googlebot-News', '/a').allowed).toBe(false);
  });
  it('no groups at all: everything allowed', () => {
    expect(compile('sitemap: https://h/s\n').check('x', '/a')).toEqual({ allowed: true, matchedLine: null });
  });
});

describe('RFC 9309 §2.2.2 rule choice', () => {
  it('the longest match wins (§5.2)', () => {
    const m = compile('User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n');
    expect(m.check('foobot', '/example/page/disallowed.gif')).toEqual({ allowed: false, matchedLine: 3 });
    expect(m.check('foobot', '/example/page/other')).toEqual({ allowed: true, matchedLine: 2 });
  });
  it('allow wins a tie of equivalent rules', () => {
    expect(compile('user-agent: a\ndisallow: /x\nallow: /x\n').check('a', '/x/1')).toEqual({ allowed: true, matchedLine: 3 });
  });
  it('matching is case-sensitive and starts at the first octet', () => {
    const m = compile('user-agent: *\ndisallow: /fish\n');
    expect(['/fish', '/fish.html', '/Fish', '/catfish'].map((p) => m.check('a', p).allowed)).toEqual([false, false, true, true]);
  });
  it('/robots.txt is always allowed', () => {
    expect(compile('user-agent: *\ndisallow: /\n').check('a', 'https://h/robots.txt')).toEqual({ allowed: true, matchedLine: null });
    expect(checkPolicy({ kind: 'disallow_all' }, 'a', 'https://h/robots.txt').allowed).toBe(true);
    expect(checkPolicy({ kind: 'disallow_all' }, 'a', '/robots.txt?x').allowed).toBe(false);
  });
  it('the query takes part in matching, the fragment does not', () => {
    const m = compile('user-agent: *\ndisallow: /*?session=\n');
    expect(m.check('a', 'https://h/p?session=1#frag').allowed).toBe(false);
    expect(m.check('a', 'https://h/p#?session=1').allowed).toBe(true);
  });
});

describe('RFC 9309 §2.2.2 percent-encoding (Figure 4) and §2.2.3 special characters (Figures 5, 6)', () => {
  it.each([
    ['/foo/bar?baz=https://foo.bar', '/foo/bar?baz=https://foo.bar'],
    ['/foo/bar/ツ', '/foo/bar/%E3%83%84'],
    ['/foo/bar/%e3%83%84', '/foo/bar/%E3%83%84'],
    ['/foo/bar/%62%61%7A', '/foo/bar/baz'],
    ['/a%2fb', '/a%2Fb'],
    ['/file-with-a-*.html', '/file-with-a-%2A.html'],
    ['/foo-$', '/foo-%24'],
    ['/a b"<>', '/a%20b%22%3C%3E'],
    ['/100%', '/100%'],
  ])('URL path %s compares as %s', (input, expected) => {
    expect(normaliseUrlPath(input)).toBe(expected);
  });

  it('a rule and a URL spelled differently but equal as octets match', () => {
    const m = compile('user-agent: *\ndisallow: /foo/bar/%e3%83%84\ndisallow: /caf%C3%A9\ndisallow: /%7Euser\n');
    expect(m.check('a', 'https://h/foo/bar/ツ').allowed).toBe(false);
    expect(m.check('a', '/café').allowed).toBe(false);
    expect(m.check('a', '/~user/x').allowed).toBe(false);
  });

  it('`*` and `$` are special; percent-encoded they match literally', () => {
    const m = compile('user-agent: *\ndisallow: /path/file-with-a-%2A.html\ndisallow: /path/foo-%24\ndisallow: /*.php$\ndisallow: /mid$dle\n');
    expect(m.check('a', 'https://www.example.com/path/file-with-a-*.html').allowed).toBe(false);
    expect(m.check('a', 'https://www.example.com/path/file-with-a-x.html').allowed).toBe(true);
    expect(m.check('a', '/path/foo-$').allowed).toBe(false);
    expect(m.check('a', '/a/b.php').allowed).toBe(false);
    expect(m.check('a', '/a/b.php?x').allowed).toBe(true);
    expect(m.check('a', '/mid$dle/x').allowed).toBe(false);
  });

  it('wildcards: `*` spans `/`; a trailing `*` changes nothing but the priority', () => {
    const m = compile('user-agent: *\ndisallow: /a*b*c\nallow: /a*b*c*\n');
    expect(m.check('a', '/a/x/b/y/c')).toEqual({ allowed: true, matchedLine: 3 });
    expect(m.check('a', '/a/c/b')).toEqual({ allowed: true, matchedLine: null });
  });

  it('pathological wildcard patterns are answered (greedy segments, no backtracking: a RegExp would not return)', () => {
    const m = compile('user-agent: *\ndisallow: /' + '*a'.repeat(2000) + '$\n');
    expect(m.check('x', '/' + 'a'.repeat(3000) + 'b').allowed).toBe(true);
    expect(m.check('x', '/' + 'a'.repeat(3000)).allowed).toBe(false);
  });
});

describe('Google-only AdsBot rule (off by default: RFC 9309 §2.2.1 says obey *)', () => {
  const m = compile('user-agent: *\ndisallow: /\n');
  it('by default AdsBot-Google obeys the * group', () => expect(m.check('AdsBot-Google', '/ads.txt').allowed).toBe(false));
  it('with ignoreGlobalGroups it ignores * groups', () => expect(m.check('AdsBot-Google', '/ads.txt', { ignoreGlobalGroups: true }).allowed).toBe(true));
});

describe('RFC 9309 §2.3.1 access results', () => {
  it.each([
    [{ kind: 'http', status: 200 }, 'rules'],
    [{ kind: 'http', status: 204 }, 'rules'],
    [{ kind: 'http', status: 304 }, 'allow_all'],
    [{ kind: 'redirect_limit' }, 'allow_all'],
    [{ kind: 'http', status: 401 }, 'allow_all'],
    [{ kind: 'http', status: 403 }, 'allow_all'],
    [{ kind: 'http', status: 404 }, 'allow_all'],
    [{ kind: 'http', status: 429 }, 'allow_all'],
    [{ kind: 'http', status: 500 }, 'disallow_all'],
    [{ kind: 'http', status: 503 }, 'disallow_all'],
    [{ kind: 'http', status: 101 }, 'disallow_all'],
    [{ kind: 'unreachable' }, 'disallow_all'],
  ] as const)('%j → %s', (outcome, expected) => {
    expect(robotsAccess(outcome)).toBe(expected);
  });

  it('robotsPolicy compiles the rules only for a usable answer', () => {
    const txt = parseRobotsTxt('user-agent: *\ndisallow: /private\n');
    const ok = robotsPolicy({ kind: 'http', status: 200 }, txt);
    expect(ok.kind).toBe('rules');
    expect(checkPolicy(ok, 'adsnap', '/private/x')).toEqual({ allowed: false, matchedLine: 2 });
    expect(robotsPolicy({ kind: 'http', status: 503 }, txt).kind).toBe('disallow_all');
    expect(checkPolicy(robotsPolicy({ kind: 'http', status: 404 }, null), 'adsnap', '/private/x')).toEqual({ allowed: true, matchedLine: null });
  });
});

describe('verdicts', () => {
  it('defaults: 16 agents (adsnap included) × /, /ads.txt, /app-ads.txt', () => {
    expect(DEFAULT_VERDICT_AGENTS).toHaveLength(16);
    expect(DEFAULT_VERDICT_AGENTS).toContain('adsnap');
    expect(DEFAULT_VERDICT_PATHS).toEqual(['/', '/ads.txt', '/app-ads.txt']);
    const policy = rulesPolicy(parseRobotsTxt('user-agent: GPTBot\ndisallow: /\n\nuser-agent: *\ndisallow: /app-ads.txt\n'));
    const rows = verdicts(policy);
    expect(rows).toHaveLength(48);
    expect(rows.filter((r) => !r.allowed).map((r) => `${r.userAgent} ${r.path} ${r.matchedLine}`)).toEqual([
      ...DEFAULT_VERDICT_AGENTS.filter((a) => a !== 'GPTBot').map((a) => `${a} /app-ads.txt 5`).slice(0, 4),
      'GPTBot / 2',
      'GPTBot /ads.txt 2',
      'GPTBot /app-ads.txt 2',
      ...DEFAULT_VERDICT_AGENTS.filter((a) => a !== 'GPTBot').map((a) => `${a} /app-ads.txt 5`).slice(4),
    ]);
  });
  it('carries the policy kind for allow_all / disallow_all', () => {
    expect(verdicts({ kind: 'disallow_all' }, ['x'], ['/'])).toEqual([{ userAgent: 'x', path: '/', allowed: false, matchedLine: null, policy: 'disallow_all' }]);
    expect(verdicts({ kind: 'allow_all' }, ['x'], ['/'])).toEqual([{ userAgent: 'x', path: '/', allowed: true, matchedLine: null, policy: 'allow_all' }]);
  });
});
