import { describe, expect, it } from 'vitest';
import { PageHeadReader } from '../src/parse/consent/page-head.js';
import { contentUsageDirectives, licenseLinks, metaDirectives, xRobotsDirectives } from '../src/parse/consent/page-signals.js';
import { ManagedBlocks } from '../src/parse/robots/managed-blocks.js';
import { parseRobotsTxt } from '../src/parse/robots/index.js';

/** The home page's head reader and its header parsers (docs/reference/ai-signals.md#the-home-page). */
function read(html: string, chunk = 7, cut = false) {
  const r = new PageHeadReader(new Set(['gptbot']));
  const bytes = Buffer.from(html, 'utf8');
  let stopped = -1;
  for (let i = 0; i < bytes.length; i += chunk) {
    if (r.push(bytes.subarray(i, i + chunk))) {
      stopped = i;
      break;
    }
  }
  return { head: r.end(cut), stopped };
}

describe('PageHeadReader', () => {
  it('stops at </head>, whatever the chunking; a meta tag after it is not read', () => {
    const html = '<html><head><META NAME="Robots" CONTENT="noai"><meta name="GPTBot" content="noindex"></head><body><meta name="robots" content="noimageai">' + 'x'.repeat(1000);
    for (const chunk of [1, 5, 64, 4096]) {
      const { head, stopped } = read(html, chunk);
      expect(head).toEqual({ end: 'closed', robots: [{ agent: '*', content: 'noai' }, { agent: 'gptbot', content: 'noindex' }], tdmReservation: null, tdmPolicy: null, licenses: [] });
      expect(stopped).toBeGreaterThanOrEqual(0);
      expect(stopped).toBeLessThan(100);
    }
  });

  it('a start tag that cannot stand in a head opens the body (HTML "in head" mode)', () => {
    expect(read('<head><title>t</title><div><meta name="robots" content="noai">').head).toMatchObject({ end: 'body', robots: [] });
    // A <meta> inside <script> is text, not a tag.
    expect(read('<head><script>"<meta name=robots content=noai>"</script></head>').head).toMatchObject({ end: 'closed', robots: [] });
  });

  it('unclosed when the page ends first, cut when the cap stopped it; TDMRep meta and RSL links', () => {
    const html = '<head><meta name="tdm-reservation" content=" 1 "><meta name="tdm-policy" content="https://x.test/p.json"><link rel="license" href="https://cc.test/by"><link rel="alternate license" type="Application/RSL+XML" href="/l.xml">';
    expect(read(html).head).toEqual({ end: 'unclosed', robots: [], tdmReservation: '1', tdmPolicy: 'https://x.test/p.json', licenses: ['/l.xml'] });
    expect(read(html, 7, true).head.end).toBe('cut');
  });
});

describe('page signals', () => {
  it('meta content: comma-separated, lower-cased, values after ":"', () => {
    expect(metaDirectives('*', 'NoAI, max-snippet: 20 ,, noimageai')).toEqual([
      { source: 'meta', userAgent: '*', directive: 'noai', value: null },
      { source: 'meta', userAgent: '*', directive: 'max-snippet', value: '20' },
      { source: 'meta', userAgent: '*', directive: 'noimageai', value: null },
    ]);
  });

  it('X-Robots-Tag: an agent scope holds within its field; value directives name no agent', () => {
    expect(xRobotsDirectives(['googlebot: noindex, nofollow', 'noai', 'max-snippet: 0, otherbot: noimageai']).map((d) => [d.userAgent, d.directive, d.value])).toEqual([
      ['googlebot', 'noindex', null],
      ['googlebot', 'nofollow', null],
      ['*', 'noai', null],
      ['*', 'max-snippet', '0'],
      ['otherbot', 'noimageai', null],
    ]);
  });

  it('Content-Usage: a dictionary, the last value of a key; null when it does not parse', () => {
    expect(contentUsageDirectives('train-ai=n, search=y, train-ai=y')!.map((d) => [d.directive, d.value])).toEqual([['search', 'y'], ['train-ai', 'y']]);
    expect(contentUsageDirectives('train-ai=n,')).toBeNull();
    expect(contentUsageDirectives('')).toBeNull();
  });

  it('Link: rel=license with no type or RSL type; commas inside <> do not split', () => {
    expect(licenseLinks('<https://a.test/x,y.xml>; rel="license"; type="application/rsl+xml", <https://cc.test/by>; rel=license; type="text/html", </l2.xml>; rel="license nofollow"')).toEqual(['https://a.test/x,y.xml', '/l2.xml']);
    expect(licenseLinks('<https://a.test/s.css>; rel=preload')).toEqual([]);
  });
});

describe('managed robots.txt blocks', () => {
  it("Cloudflare's markers (their case differs) and Yoast's; an unclosed block runs to the end", () => {
    const txt = parseRobotsTxt('#  BEGIN Cloudflare Managed content\nUser-agent: GPTBot\nDisallow: /\n# END Cloudflare Managed Content\n# START YOAST BLOCK\nUser-agent: *\n');
    expect(txt.managedBlocks).toEqual([
      { generator: 'cloudflare', beginLine: 1, endLine: 4 },
      { generator: 'yoast', beginLine: 5, endLine: null },
    ]);
    const m = new ManagedBlocks();
    m.comment(3, '# BEGIN Cloudflare Managed content (not alone)');
    expect(m.blocks).toEqual([]);
  });
});
