/**
 * Synthetic robots.txt files, in the shapes the corpus shows (robots/: one `*` group in most
 * files, a few named crawler groups, a sitemap line in half of them) plus the cases the crawler
 * must get right (RFC 9309 §2.3.1: 4xx = allow all, 5xx = disallow all; an adsnap group).
 */
import { ROBOTS_SITEMAP_SHARE, ROBOTS_WEIGHTS } from './calibration.js';
import { Rng } from './prng.js';

export type RobotsKind = keyof typeof ROBOTS_WEIGHTS;

const PATHS = ['/admin/', '/wp-admin/', '/search', '/cart', '/checkout/', '/*?sessionid=', '/*.pdf$', '/private/', '/tmp/', '/login', '/api/', '/cgi-bin/'];
const BOTS = ['GPTBot', 'CCBot', 'AhrefsBot', 'MJ12bot', 'SemrushBot', 'Googlebot-Image', 'Bytespider'];

export function robotsKind(seed: number, host: string): RobotsKind {
  return Rng.for(seed, 'robots-kind', host).weighted(ROBOTS_WEIGHTS);
}

/** The robots.txt body of `host` for a kind that has one (not `none`, not `server_error`). */
export function robotsBody(seed: number, host: string, kind: RobotsKind, canonical: string): string {
  const rng = Rng.for(seed, 'robots', host);
  if (kind === 'html') return `<!DOCTYPE html><html><head><title>${host}</title></head><body><p>Welcome</p></body></html>\n`;
  const lines: string[] = [];
  if (kind === 'disallow_all') lines.push('User-agent: *', 'Disallow: /');
  else {
    if (kind === 'disallow_adsnap') lines.push('User-agent: adsnap', 'Disallow: /', '');
    const named = rng.int(3);
    for (let i = 0; i < named; i++) lines.push(`User-agent: ${rng.pick(BOTS)}`, 'Disallow: /', '');
    lines.push('User-agent: *');
    const rules = 1 + rng.int(6);
    for (let i = 0; i < rules; i++) lines.push(`Disallow: ${rng.pick(PATHS)}`);
    if (rng.chance(0.3)) lines.push('Allow: /wp-admin/admin-ajax.php');
    if (rng.chance(0.1)) lines.push(`Crawl-delay: ${1 + rng.int(10)}`);
  }
  if (rng.chance(ROBOTS_SITEMAP_SHARE)) lines.push('', `Sitemap: https://${canonical}/sitemap.xml`);
  return lines.join('\n') + '\n';
}

/** The stores' robots.txt: detail pages allowed, search and account pages not (as real stores do). */
export function storeRobots(host: string): string {
  return host === 'play.google.com'
    ? 'User-agent: *\nDisallow: /store/search\nDisallow: /store/account\nAllow: /store/apps/details\nAllow: /store/apps/dev\n\nSitemap: https://play.google.com/sitemaps/sitemaps-index-0.xml\n'
    : 'User-agent: *\nDisallow: /*/search\nDisallow: /account/\nAllow: /\n';
}
