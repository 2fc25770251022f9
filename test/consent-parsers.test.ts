import { describe, expect, it } from 'vitest';
import { consentIssueCodes, matchesRoot, parseLlmsTxt, parseRsl, parseTdmRep } from '../src/parse/consent/index.js';
import { licenseLines, parseRobotsTxt } from '../src/parse/robots/index.js';

const codes = (issues: { code: string }[]) => issues.map((i) => i.code);

describe('TDMRep tdmrep.json (W3C CG Final Report 2024-05-10 §3.1)', () => {
  it('reads the specification’s second example rule by rule', () => {
    const doc = parseTdmRep(`[
      {"location": "/directory-a/", "tdm-reservation": 1},
      {"location": "/directory-b/html/", "tdm-reservation": 1, "tdm-policy": "https://provider.com/policies/policy.json"},
      {"location": "/directory-b/images/*.jpg", "tdm-reservation": 0}
    ]`);
    expect(doc.status).toBe('ok');
    expect(doc.issues).toEqual([]);
    expect(doc.rules).toEqual([
      { ruleNo: 1, location: '/directory-a/', reservation: 1, policy: null, matchesRoot: false },
      { ruleNo: 2, location: '/directory-b/html/', reservation: 1, policy: 'https://provider.com/policies/policy.json', matchesRoot: false },
      { ruleNo: 3, location: '/directory-b/images/*.jpg', reservation: 0, policy: null, matchesRoot: false },
    ]);
  });

  it('a location matches / by RFC 9309 patterns: /, *, /$ and /* do; /news/, /$x and an empty one do not', () => {
    expect(['/', '*', '/$', '/*', '/%2A'].map(matchesRoot)).toEqual([true, true, true, true, false]);
    expect(['/news/', '/index.html', '', '  '].map(matchesRoot)).toEqual([false, false, false, false]);
  });

  it('errors are parse issues with stable codes; a bad rule is kept with what it says', () => {
    const doc = parseTdmRep(`\uFEFF[ 7, {"tdm-reservation": 1}, {"location": "/", "tdm-reservation": "1", "x": 1}, {"location": "/a", "tdm-reservation": 2, "tdm-policy": "policy.json"}, {"location": "/b"} ]`);
    expect(doc.status).toBe('ok');
    expect(codes(doc.issues)).toEqual(['TDMREP_RULE_NOT_OBJECT', 'TDMREP_LOCATION_MISSING', 'TDMREP_UNKNOWN_PROPERTY', 'TDMREP_RESERVATION_STRING', 'TDMREP_POLICY_NOT_URL', 'TDMREP_RESERVATION_INVALID', 'TDMREP_RESERVATION_MISSING']);
    expect(doc.rules.map((r) => [r.ruleNo, r.location, r.reservation, r.matchesRoot])).toEqual([
      [2, null, 1, false],
      [3, '/', 1, true],
      [4, '/a', null, false],
      [5, '/b', null, false],
    ]);
    expect(doc.issues[0]).toMatchObject({ severity: 'error', lineNo: null, lineText: '7' });
  });

  it('not JSON, not an array, empty body, empty array', () => {
    expect(parseTdmRep('[ {"location": "/"').status).toBe('invalid_json');
    expect(codes(parseTdmRep('[ {"location": "/"').issues)).toEqual(['TDMREP_NOT_JSON']);
    expect(codes(parseTdmRep('{"location": "/", "tdm-reservation": 1}').issues)).toEqual(['TDMREP_NOT_ARRAY']);
    expect(parseTdmRep(' \n').status).toBe('empty');
    expect(codes(parseTdmRep('[]').issues)).toEqual(['TDMREP_EMPTY']);
  });
});

describe('RSL 1.0 licences', () => {
  it('content, license, permits/prohibits by type, payment type; the rsl: prefix of a feed reads the same', () => {
    const doc = parseRsl(`<rss xmlns:rsl="https://rslstandard.org/rsl"><rsl:rsl xmlns:rsl="https://rslstandard.org/rsl"><rsl:content url="https://example.com/*"><rsl:license>
      <rsl:permits type="usage">ai-train, search</rsl:permits><rsl:prohibits type="user">commercial</rsl:prohibits><rsl:payment type="purchase"><rsl:amount currency="USD">10</rsl:amount></rsl:payment>
      </rsl:license></rsl:content></rsl:rsl></rss>`);
    // The feed's root is <rss>: no <rsl> root, so nothing is read from it.
    expect(doc.rsl).toBe(false);
    expect(codes(doc.issues)).toEqual(['RSL_NO_RSL_ROOT']);
    const plain = parseRsl(`<?xml version="1.0"?><rsl:rsl xmlns:rsl="https://rslstandard.org/rsl"><rsl:content url="/"><rsl:license>
      <rsl:permits type="usage"><![CDATA[ai-train search]]></rsl:permits><rsl:prohibits type="user">commercial</rsl:prohibits><rsl:payment type="purchase"><rsl:amount currency="USD">10</rsl:amount></rsl:payment>
      </rsl:license></rsl:content></rsl:rsl>`);
    expect(plain.issues).toEqual([]);
    expect(plain.licenses).toEqual([{ contentNo: 1, contentUrl: '/', licenseNo: 1, permits: ['usage:ai-train', 'usage:search'], prohibits: ['user:commercial'], paymentType: 'purchase' }]);
  });

  it('missing parts are issues; a content without a license still has its row', () => {
    const doc = parseRsl(`<rsl xmlns="https://example.com/wrong"><content><license><permits>search</permits><prohibits type="planet">mars</prohibits></license></content><content url="/x"/></rsl>`);
    expect(codes(doc.issues)).toEqual(['RSL_WRONG_NAMESPACE', 'RSL_CONTENT_NO_URL', 'RSL_TERM_NO_TYPE', 'RSL_UNKNOWN_TERM_TYPE', 'RSL_CONTENT_NO_LICENSE']);
    expect(doc.licenses).toEqual([
      { contentNo: 1, contentUrl: null, licenseNo: 1, permits: ['unknown:search'], prohibits: ['planet:mars'], paymentType: null },
      { contentNo: 2, contentUrl: '/x', licenseNo: null, permits: [], prohibits: [], paymentType: null },
    ]);
    expect(codes(parseRsl('<rsl xmlns="https://rslstandard.org/rsl"></rsl>').issues)).toEqual(['RSL_NO_CONTENT']);
    expect(codes(parseRsl('not xml at all').issues)).toEqual(['RSL_NO_RSL_ROOT']);
  });

  it('deep nesting costs linear time (no element stack)', () => {
    const deep = '<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license>' + '<x>'.repeat(200_000) + '<permits type="usage">search</permits></license></content></rsl>';
    const t0 = performance.now();
    const doc = parseRsl(deep);
    expect(doc.licenses[0]!.permits).toEqual(['usage:search']);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});

describe('llms.txt proposal (2024-09-03)', () => {
  it('title, summary, sections and links; links in code blocks do not count', () => {
    const doc = parseLlmsTxt('# FastHTML\n\n> A Python library.\n> Second line.\n\nNotes [inline](https://x.test/a).\n\n## Docs\n\n- [A](https://x.test/a.md): first\n- [B](https://x.test/b.md "t")\n\n```\n[not](https://x.test/c)\n```\n## Optional\n- [C](https://x.test/c.md)\n');
    expect(doc).toEqual({ titled: true, title: 'FastHTML', summary: 'A Python library. Second line.', sections: 2, links: 4, issues: [] });
  });

  it('no H1 is LLMS_NO_TITLE; text before the title is LLMS_TITLE_NOT_FIRST', () => {
    const none = parseLlmsTxt('## Only a section\n- [A](https://x.test/a)\n');
    expect([none.titled, none.sections, none.links, codes(none.issues)]).toEqual([false, 1, 1, ['LLMS_NO_TITLE']]);
    const late = parseLlmsTxt('intro\n# Title\n');
    expect([late.title, codes(late.issues), late.issues[0]!.lineNo]).toEqual(['Title', ['LLMS_TITLE_NOT_FIRST'], 2]);
  });
});

describe('robots.txt License lines (RSL 1.0; RFC 9309 §2.2.4)', () => {
  it('kept with the resolved URL and whether it is on the site; no verdict changes; a value that is no URL is an issue', () => {
    const txt = parseRobotsTxt('License: /license.xml\nUser-agent: *\nDisallow: /x\nLicense: https://other.test/l.xml\nLicense: mailto:a@b.test\n');
    expect(txt.issues.map((i) => i.code)).toEqual([]); // a known record: no UNKNOWN_DIRECTIVE
    expect(txt.groups.map((g) => g.rules.length)).toEqual([1]);
    const { licenses, issues } = licenseLines(txt, 'https://www.site.test/robots.txt', 'www.site.test');
    expect(licenses).toEqual([
      { url: '/license.xml', resolvedUrl: 'https://www.site.test/license.xml', sameHost: true, lineNo: 1 },
      { url: 'https://other.test/l.xml', resolvedUrl: 'https://other.test/l.xml', sameHost: false, lineNo: 4 },
      { url: 'mailto:a@b.test', resolvedUrl: null, sameHost: false, lineNo: 5 },
    ]);
    expect(issues.map((i) => [i.code, i.severity, i.lineNo])).toEqual([['LICENSE_NOT_URL', 'warning', 5]]);
  });
});

describe('issue codes', () => {
  it('are unique, upper-snake, and name their spec', () => {
    const all = consentIssueCodes.map((c) => c.code);
    expect(new Set(all).size).toBe(all.length);
    for (const c of consentIssueCodes) {
      expect(c.code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(c.spec).toMatch(/TDMRep|RSL|llms\.txt|HTML Living Standard|draft-ietf-aipref/);
    }
  });
});

describe('hostile bodies at the byte caps cost linear time', () => {
  it('llms.txt: 4 MiB lines of brackets, of half links, of `# # #`', () => {
    const MiB = 1024 * 1024;
    for (const body of ['['.repeat(4 * MiB), '[a](x'.repeat((4 * MiB) / 5), '# ' + '# '.repeat(2 * MiB) + 'x', '# ' + ' #'.repeat(2 * MiB)]) {
      const t0 = performance.now();
      parseLlmsTxt(body);
      expect(performance.now() - t0).toBeLessThan(3000);
    }
  });

  it('llms.txt headings: a closing run of # is dropped, a # inside the title is kept', () => {
    expect(['# Title ##', '# C#', '#  Spaced  ', '# ###', '#NoSpace'].map((l) => parseLlmsTxt(l).title)).toEqual(['Title', 'C#', 'Spaced', null, null]);
  });

  it('tdmrep.json: 1 MiB of nested arrays, and a rule of many unknown properties', () => {
    const deep = '['.repeat(500_000) + ']'.repeat(500_000);
    expect(codes(parseTdmRep(deep).issues)).toEqual(['TDMREP_RULE_NOT_OBJECT']);
    const many = JSON.stringify([Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]).concat([['location', '/'], ['tdm-reservation', 1]]))]);
    const doc = parseTdmRep(many);
    expect(doc.rules[0]!.reservation).toBe(1);
    expect(codes(doc.issues)).toEqual(['TDMREP_UNKNOWN_PROPERTY']);
  });
});
