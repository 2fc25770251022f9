/**
 * The synthetic web's consent files (crawl --ai-signals): /.well-known/tdmrep.json (W3C TDMRep
 * §3.1) and /llms.txt (the llms.txt proposal) on a few sites, and the `tdm-reservation` header
 * (TDMRep §3.2) on a few robots.txt answers. Each choice has its own random stream per host, so
 * the rest of a site (its robots.txt body, its ads.txt) is the same as without them.
 */
import { HOME_PAGE_BODY_BYTES, HOME_PAGE_HEAD_BYTES, HOME_PAGE_WEIGHTS, LLMS_TXT_WEIGHTS, TDM_HEADER_SHARE, TDMREP_WEIGHTS } from './calibration.js';
import { Rng } from './prng.js';
import { HTML, JSON_TYPE, body, type Route } from './route.js';

const TEXT_MARKDOWN = 'text/markdown; charset=utf-8';

/** The answer for a consent file's path on a site, or null when the site has none there. */
export function consentRoute(seed: number, root: string, canonical: string, path: string): Route | null {
  if (path === '/.well-known/tdmrep.json') {
    const kind = Rng.for(seed, 'tdmrep', root).weighted(TDMREP_WEIGHTS);
    if (kind === 'none') return null;
    const rules =
      kind === 'reserve_all' ? [{ location: '/', 'tdm-reservation': 1, 'tdm-policy': `https://${canonical}/tdm-policy.json` }]
      : kind === 'reserve_news' ? [{ location: '/news/', 'tdm-reservation': 1 }]
      : [{ location: '/', 'tdm-reservation': 0 }];
    return body(200, JSON_TYPE, JSON.stringify(rules, null, 2) + '\n');
  }
  if (path === '/llms.txt') {
    const kind = Rng.for(seed, 'llms', root).weighted(LLMS_TXT_WEIGHTS);
    if (kind === 'none') return null;
    if (kind === 'html') return body(200, HTML, `<!DOCTYPE html><html><head><title>${root}</title></head><body><p>Welcome</p></body></html>\n`);
    return body(200, TEXT_MARKDOWN, `# ${root}\n\n> The site ${root}, for language models.\n\n## Pages\n\n- [Home](https://${canonical}/): the front page\n- [About](https://${canonical}/about)\n`);
  }
  if (path === '/') return homePage(seed, root, canonical);
  return null;
}

/** Filler the size of a real head's inline style, and of a body: shared, built once. */
const HEAD_FILLER = `<style>\n${'.c { margin: 0 auto; padding: 0 1em; color: #333; }\n'.repeat(Math.ceil(HOME_PAGE_HEAD_BYTES / 52))}</style>\n`;
const BODY_FILLER = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(Math.ceil(HOME_PAGE_BODY_BYTES / 58))}</p>\n`;

/** A site's home page: a head of ~12 KiB that says something of AI on a few sites, then a body of ~48 KiB. */
function homePage(seed: number, root: string, canonical: string): Route {
  const kind = Rng.for(seed, 'home', root).weighted(HOME_PAGE_WEIGHTS);
  const tag =
    kind === 'noai_meta' ? '<meta name="robots" content="noai, noimageai">\n'
    : kind === 'tdm_meta' ? `<meta name="tdm-reservation" content="1">\n<meta name="tdm-policy" content="https://${canonical}/tdm-policy.json">\n`
    : kind === 'rsl_link' ? '<link rel="license" type="application/rsl+xml" href="/license.xml">\n'
    : '';
  const page = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${root}</title>\n${HEAD_FILLER}${tag}</head>\n<body>\n${BODY_FILLER}</body>\n</html>\n`;
  return body(200, HTML, page, kind === 'noai_header' ? { 'x-robots-tag': 'noai' } : undefined);
}

/** Headers of a site's robots.txt answer: `tdm-reservation: 1` on a few (TDMRep §3.2). */
export function robotsHeaders(seed: number, root: string): Record<string, string> | undefined {
  return Rng.for(seed, 'tdm-header', root).chance(TDM_HEADER_SHARE) ? { 'tdm-reservation': '1' } : undefined;
}
