import { describe, expect, it } from 'vitest';
import { parseRobotsTxt, RobotsMatcher, RobotsParser } from '../src/parse/robots/index.js';

const allowed = (txt: string, path: string, agent = 'adsnap') => RobotsMatcher.compile(parseRobotsTxt(txt)).check(agent, path).allowed;

describe('robots.txt: NUL octets end the line, as in Google\'s reference', () => {
  const body = 'User-agent: *\nDisallow: /family/photos\0\0\0\nAllow: /open\n';

  it('reads the value up to the first NUL, so the rule applies instead of failing open', () => {
    const t = parseRobotsTxt(body);
    expect(t.groups[0]!.rules.map((r) => [r.directive, r.path, r.pattern])).toEqual([
      ['disallow', '/family/photos', '/family/photos'],
      ['allow', '/open', '/open'],
    ]);
    expect(allowed(body, '/family/photos')).toBe(false);
    expect(allowed(body, '/family/photos/2024.jpg')).toBe(false);
    expect(allowed(body, '/family')).toBe(true);
  });

  it('reports each such line once, with a stable code and the line as read', () => {
    const t = parseRobotsTxt(body);
    expect(t.issues).toEqual([
      { lineNo: 2, severity: 'warning', code: 'NUL_IN_LINE', message: "NUL octet at column 25; the line is read up to it, as Google's reference does", lineText: 'Disallow: /family/photos' },
    ]);
    expect(t.status).toBe('ok');
  });

  it('drops whatever follows the NUL on that line, key and comment included', () => {
    const t = parseRobotsTxt('User-agent: *\nDisallow: /a\0 # not a comment: /b\n\0Disallow: /c\nDis\0allow: /d\n');
    expect(t.groups[0]!.rules.map((r) => r.path)).toEqual(['/a']);
    expect(t.issues.map((i) => [i.lineNo, i.code])).toEqual([
      [2, 'NUL_IN_LINE'],
      [3, 'NUL_IN_LINE'],
      [4, 'NUL_IN_LINE'],
      [4, 'INVALID_LINE'],
    ]);
  });

  it('gives the same result whatever the chunking', () => {
    const bytes = Buffer.from(body, 'latin1');
    const p = new RobotsParser();
    for (const b of bytes) p.push(Uint8Array.of(b));
    expect(p.end()).toEqual(parseRobotsTxt(body));
  });
});

describe('robots.txt: a path without its leading slash (Google\'s spec: `fish/` is `/fish/`)', () => {
  const body = 'User-agent: *\nDisallow: fish/\nAllow: fish/salmon.html\n';

  it('matches as if written with the slash, and keeps the path as written', () => {
    const t = parseRobotsTxt(body);
    expect(t.groups[0]!.rules.map((r) => [r.path, r.pattern])).toEqual([
      ['fish/', '/fish/'],
      ['fish/salmon.html', '/fish/salmon.html'],
    ]);
    expect(allowed(body, '/fish/')).toBe(false);
    expect(allowed(body, '/fish/?id=anything')).toBe(false);
    expect(allowed(body, '/fish/salmon.html')).toBe(true);
    expect(allowed(body, '/fish')).toBe(true);
    expect(allowed(body, '/catfish/')).toBe(true);
  });

  it('agrees with the same file written with slashes, priority included', () => {
    const slashed = 'User-agent: *\nDisallow: /fish/\nAllow: /fish/salmon.html\n';
    for (const path of ['/', '/fish/', '/fish/salmon.html', '/fish/salmon.htm', '/fish.html']) expect(allowed(body, path)).toBe(allowed(slashed, path));
  });

  it('is noted with PATH_NOT_ABSOLUTE (RFC 9309 §2.2 requires the slash); `*…` and empty paths are not', () => {
    const t = parseRobotsTxt('User-agent: *\nDisallow: fish/\nDisallow: *.php\nDisallow:\n');
    expect(t.issues.map((i) => [i.lineNo, i.severity, i.code])).toEqual([[2, 'warning', 'PATH_NOT_ABSOLUTE']]);
    expect(t.issues[0]!.message).toMatch(/leading `\/`.*RFC 9309 §2\.2/);
    expect(t.groups[0]!.rules.map((r) => r.pattern)).toEqual(['/fish/', '*.php', '']);
  });
});
