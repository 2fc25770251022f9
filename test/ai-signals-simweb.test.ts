import { describe, expect, it } from 'vitest';
import { parseLlmsTxt, parseTdmRep } from '../src/parse/consent/index.js';
import { consentRoute, robotsHeaders } from '../src/simweb/consent-body.js';
import { LLMS_TXT_WEIGHTS, TDM_HEADER_SHARE, TDMREP_WEIGHTS } from '../src/simweb/calibration.js';

/** The synthetic web's consent files: deterministic per host, at the assumed shares, and readable by the parsers. */
describe('simweb consent files (crawl --ai-signals)', () => {
  const roots = Array.from({ length: 20_000 }, (_, i) => `site-${i.toString(36)}.example`);

  it('tdmrep.json: the three shapes at their shares, each a valid rule list', () => {
    const seen = { reserve_all: 0, reserve_news: 0, not_reserved: 0 };
    for (const root of roots) {
      const r = consentRoute(7, root, root, '/.well-known/tdmrep.json');
      if (r === null) continue;
      expect(r).toMatchObject({ type: 'body', status: 200 });
      const doc = parseTdmRep((r as { body: Buffer }).body.toString('utf8'));
      expect([doc.status, doc.issues, doc.rules.length]).toEqual(['ok', [], 1]);
      const [rule] = doc.rules;
      if (rule!.matchesRoot && rule!.reservation === 1) seen.reserve_all++;
      else if (!rule!.matchesRoot) seen.reserve_news++;
      else seen.not_reserved++;
    }
    for (const k of Object.keys(seen) as (keyof typeof seen)[]) expect(seen[k] / roots.length).toBeCloseTo(TDMREP_WEIGHTS[k], 2);
  });

  it('llms.txt: Markdown with its title, or an HTML page; none on most sites', () => {
    let markdown = 0;
    let html = 0;
    for (const root of roots) {
      const r = consentRoute(7, root, `www.${root}`, '/llms.txt') as { contentType: string; body: Buffer } | null;
      if (r === null) continue;
      if (r.contentType.startsWith('text/html')) html++;
      else {
        const doc = parseLlmsTxt(r.body.toString('utf8'));
        expect([doc.title, doc.sections, doc.links]).toEqual([root, 1, 2]);
        markdown++;
      }
    }
    expect(markdown / roots.length).toBeCloseTo(LLMS_TXT_WEIGHTS.markdown, 2);
    expect(html / roots.length).toBeCloseTo(LLMS_TXT_WEIGHTS.html, 2);
  });

  it('the same host always gets the same answer; other paths are not consent files', () => {
    expect(consentRoute(7, roots[5]!, roots[5]!, '/llms.txt')).toEqual(consentRoute(7, roots[5]!, roots[5]!, '/llms.txt'));
    expect(consentRoute(7, roots[5]!, roots[5]!, '/ads.txt')).toBeNull();
    const headers = roots.filter((r) => robotsHeaders(7, r)?.['tdm-reservation'] === '1').length;
    expect(headers / roots.length).toBeCloseTo(TDM_HEADER_SHARE, 2);
  });
});
