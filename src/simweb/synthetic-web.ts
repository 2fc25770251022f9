/**
 * The synthetic web: maps any (host, path) to a Route and any host to a HostSpec, from the seed
 * alone. Rendered bodies are kept in a byte-bounded LRU; everything else is recomputed.
 */
import { isWithin } from '../util/domain.js';
import { PLACEHOLDER_FILE, renderAdsTxt, soft404Page } from './adstxt-body.js';
import { APP_AD_SYSTEMS, AD_SYSTEM_TAIL_COUNT, HOSTILE_SHARE, WEB_AD_SYSTEMS } from './calibration.js';
import { appIndexFromPath, appSpec, APPLE_HOST, PLAY_HOST, storeNotFoundPage, storePage } from './apps.js';
import { benignFile, invalidUtf8File } from './hostile.js';
import { Lru } from './lru.js';
import { HOSTILE_KINDS, hostileName, parseHostileHost, parseSyntheticHost, syntheticName, type HostileKind } from './names.js';
import { Rng, hash32 } from './prng.js';
import { robotsBody, storeRobots } from './robots-body.js';
import { consentRoute, robotsHeaders } from './consent-body.js';
import { HTML, JSON_TYPE, NOT_FOUND, TEXT, body, redirect, type HostBehaviour, type HostSpec, type Route } from './route.js';
import { sellersJson } from './sellers-body.js';
import { expectedFile, siteSpec, subdomainRecords, type SiteSpec, type WebSize } from './site-spec.js';

export interface SyntheticOptions extends WebSize {
  apps: number;
  hostile: boolean;
  latency: { minMs: number; maxMs: number } | null;
  /** Publishers scanned for each sellers.json. */
  sellersPublishers: number;
  /**
   * Which night of the simulated web this is: at epoch E > 0, a fixed 5% of sites (chosen per
   * epoch) serve a revised ads.txt, so incremental crawls see a realistic share of changes.
   */
  epoch: number;
}

/** Share of sites whose ads.txt changes from one epoch to the next. */
export const CHANGED_SHARE_PERCENT = 5;

const KNOWN_AD_SYSTEMS = new Set([...WEB_AD_SYSTEMS, ...APP_AD_SYSTEMS].map(([d]) => d));
const CERT_GROUP = 64;
const OK_BEHAVIOUR = { transport: 'redirect_to_https', tls: 'ok' } as const;

export class SyntheticWeb {
  private readonly sites = new Lru<string, SiteSpec>(4_000);
  private readonly bodies = new Lru<string, Route>(50_000, 64 << 20, (r) => (r.type === 'body' ? r.body.length + 200 : 200));
  private readonly tailAdSystems: Set<string>;

  constructor(readonly options: SyntheticOptions) {
    this.tailAdSystems = new Set(Array.from({ length: AD_SYSTEM_TAIL_COUNT }, (_, t) => syntheticName(options.seed, 'adsystem', t)));
  }

  /** True when this site's ads.txt differs at the current epoch from the one before. */
  changedThisEpoch(root: string): boolean {
    return this.options.epoch > 0 && hash32(`${root}#epoch${this.options.epoch}`) % 100 < CHANGED_SHARE_PERCENT;
  }

  /** Root domain of rank `rank` (1-based); a small calibrated share are hostile hosts. */
  domainAt(rank: number): string {
    const { seed, hostile } = this.options;
    if (hostile) {
      const rng = Rng.for(seed, 'hostile?', String(rank));
      if (rng.chance(HOSTILE_SHARE)) return hostileName(rng.pick(HOSTILE_KINDS), rank);
    }
    return syntheticName(seed, 'root', rank);
  }

  *domains(): Iterable<string> {
    for (let i = 1; i <= this.options.hosts; i++) yield this.domainAt(i);
  }

  /** The ad systems' hosts, each serving a sellers.json: the known ones, then the synthetic tail. */
  *adSystemHosts(): Iterable<string> {
    yield* KNOWN_AD_SYSTEMS;
    yield* this.tailAdSystems;
  }

  *appUrls(): Iterable<string> {
    for (let j = 0; j < this.options.apps; j++) yield appSpec(this.options.seed, j).storeUrl;
  }

  private site(cls: SiteSpec['cls'], index: number): SiteSpec {
    return this.sites.getOrCreate(`${cls}:${index}`, () => siteSpec(this.options, cls, index));
  }

  private latencyFor(host: string): number {
    const l = this.options.latency;
    if (!l) return 0;
    // Per-host base delay, skewed towards fast hosts (a few slow ones dominate a crawl's tail).
    const u = hash32(host, this.options.seed ^ 0x1a7) / 4294967296;
    return Math.round(l.minMs + (l.maxMs - l.minMs) * u * u);
  }

  behaviour(host: string): HostBehaviour {
    const latencyMs = this.latencyFor(host);
    const hostile = parseHostileHost(host);
    if (hostile) {
      const k = hostile.kind;
      if (k === 'tls-wrong-name') return { transport: 'both', tls: 'wrong_name', latencyMs };
      if (k === 'tls-expired') return { transport: 'both', tls: 'expired', latencyMs };
      if (k === 'tls-abort') return { transport: 'http_only', tls: 'abort', latencyMs };
      if (k === 'https-only') return { transport: 'https_only', tls: 'ok', latencyMs };
      return { transport: 'both', tls: 'ok', latencyMs };
    }
    const p = parseSyntheticHost(this.options.seed, host);
    if (p && (p.cls === 'root' || p.cls === 'partner' || p.cls === 'developer')) {
      const t = this.site(p.cls, p.index).transport;
      return { transport: t, tls: t === 'http_only' ? 'abort' : 'ok', latencyMs };
    }
    return { ...OK_BEHAVIOUR, latencyMs };
  }

  /** Certificates cover 64 neighbouring sites of a class (apex and wildcard each): see Resolver.certGroup. */
  certGroup(host: string): { key: string; names: string[] } | null {
    const p = parseSyntheticHost(this.options.seed, host);
    if (!p || p.sub.includes('.')) return null;
    const first = p.index - (p.index % CERT_GROUP);
    const names: string[] = [];
    for (let i = first; i < first + CERT_GROUP; i++) {
      const n = syntheticName(this.options.seed, p.cls, i);
      names.push(n, `*.${n}`);
    }
    return { key: `${p.cls}:${first}`, names };
  }

  /** The answer for a path (with query) on a host, over either scheme. */
  route(host: string, path: string): Route {
    const hostile = parseHostileHost(host);
    if (hostile) return this.hostileRoute(hostile.kind, host, path);
    if (host === PLAY_HOST || host === APPLE_HOST) return this.storeRoute(host, path);
    if (KNOWN_AD_SYSTEMS.has(host) || this.tailAdSystems.has(host)) return this.adSystemRoute(host, path);
    const p = parseSyntheticHost(this.options.seed, host);
    if (!p) return NOT_FOUND;
    if (p.cls === 'manager') return this.managerRoute(p.index, path);
    if (p.cls === 'adsystem') return NOT_FOUND;
    if (p.cls === 'root' && p.index > this.options.hosts) return NOT_FOUND;
    const site = this.site(p.cls, p.index);
    const canonicalHost = site.canonical === 'www' ? `www.${site.root}` : site.root;
    // www ↔ apex: the non-canonical one redirects, in scope (ads.txt 1.1 §3.1: same root).
    if ((p.sub === '' || p.sub === 'www') && host !== canonicalHost) return redirect(`${site.transport === 'http_only' ? 'http' : 'https'}://${canonicalHost}${path}`);
    const bare = path.split('?')[0]!;
    if (bare === '/robots.txt') return this.robotsRoute(site, host);
    if (p.sub === '' || p.sub === 'www') {
      if (bare === `/${site.fileKind}`) return this.fileRoute(site, host);
    } else {
      const sub = site.subdomains.find((s) => s.host === host);
      if (sub?.hasFile && bare === '/ads.txt') return this.cached(`sub:${host}`, () => {
        const plan = subdomainRecords(this.options.seed, host);
        return body(200, TEXT, renderAdsTxt(this.options.seed, host, plan.records, { variables: plan.variables, quirks: false }).text);
      });
    }
    if (p.sub === '' || p.sub === 'www') {
      const consent = consentRoute(this.options.seed, site.root, canonicalHost, bare);
      if (consent) return consent;
    }
    return site.outcome === 'soft_404' ? body(200, HTML, soft404Page(host)) : NOT_FOUND;
  }

  private cached(key: string, make: () => Route): Route {
    return this.bodies.getOrCreate(key, make);
  }

  private fileRoute(site: SiteSpec, host: string): Route {
    const { seed } = this.options;
    switch (site.outcome) {
      case 'not_found': return NOT_FOUND;
      case 'soft_404': return body(200, HTML, soft404Page(host));
      case 'forbidden': return body(403, HTML, '<html><body><h1>403 Forbidden</h1></body></html>\n');
      case 'server_error': return body(hash32(host) % 2 ? 500 : 503, HTML, '<html><body><h1>Service Unavailable</h1></body></html>\n');
      case 'placeholder': return body(200, TEXT, PLACEHOLDER_FILE);
      case 'empty': return body(200, TEXT, hash32(host) % 2 ? '' : '# nothing here yet\n');
      case 'redirect_out': return redirect(`https://${site.manager}/ads/${site.root}.txt`, 302);
      case 'redirect_out_twice': return redirect(`https://${site.manager}/r/${site.root}.txt`, 302);
      default: break;
    }
    return this.cached(`file:${site.root}`, () => {
      const rendered = renderAdsTxt(seed, site.root, site.records, { variables: site.variables, quirks: true });
      if (this.changedThisEpoch(site.root)) rendered.text += `# revision ${this.options.epoch}\n`;
      if (site.outcome === 'utf16') return body(200, TEXT, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(rendered.text.replace(/^\uFEFF/, ''), 'utf16le')]));
      if (site.outcome === 'invalid_utf8') return body(200, TEXT, Buffer.concat([Buffer.from('# r\xe9sum\xe9\n', 'latin1'), Buffer.from(rendered.text)]));
      const type = site.outcome === 'wrong_content_type' ? (hash32(host) % 2 ? HTML : 'application/octet-stream') : TEXT;
      return body(200, type, rendered.text);
    });
  }

  private robotsRoute(site: SiteSpec, host: string): Route {
    switch (site.robots) {
      case 'none': return NOT_FOUND;
      case 'server_error': return body(503, HTML, '<html><body>Service Unavailable</body></html>\n');
      default: {
        const canonical = site.canonical === 'www' ? `www.${site.root}` : site.root;
        return this.cached(`robots:${host}`, () => body(200, site.robots === 'html' ? HTML : TEXT, robotsBody(this.options.seed, host, site.robots, canonical), robotsHeaders(this.options.seed, site.root)));
      }
    }
  }

  private managerRoute(index: number, path: string): Route {
    const m = /^\/(ads|r)\/([a-z0-9.-]+)\.txt$/.exec(path);
    if (!m) return path === '/robots.txt' ? body(200, TEXT, 'User-agent: *\nAllow: /\n') : NOT_FOUND;
    const target = m[2]!;
    // A second hop out of the publisher's root: the crawler must record redirect_error (§3.1).
    if (m[1] === 'r') return redirect(`https://${syntheticName(this.options.seed, 'manager', index + 1)}/ads/${target}.txt`, 302);
    const p = parseSyntheticHost(this.options.seed, target);
    if (!p || p.cls !== 'root') return body(200, TEXT, benignFile(target));
    const site = this.site('root', p.index);
    return this.cached(`mgr:${target}`, () => body(200, TEXT, renderAdsTxt(this.options.seed, site.root, site.records, { variables: site.variables, quirks: false }).text));
  }

  private adSystemRoute(host: string, path: string): Route {
    if (path === '/robots.txt') return body(200, TEXT, 'User-agent: *\nDisallow: /private/\n');
    if (path !== '/sellers.json') return NOT_FOUND;
    return this.cached(`sellers:${host}`, () => {
      const self = this;
      const doc = sellersJson(host, {
        seed: this.options.seed,
        *publishers() {
          const n = Math.min(self.options.hosts, self.options.sellersPublishers);
          for (let i = 1; i <= n; i++) {
            const s = siteSpec(self.options, 'root', i);
            if (s.recordCount === 0) continue;
            yield { root: s.root, directSystems: new Set(s.records.filter((r) => r.relationship === 'DIRECT').map((r) => r.system)) };
          }
        },
      });
      return body(200, JSON_TYPE, doc.text);
    });
  }

  private storeRoute(host: string, path: string): Route {
    if (path === '/robots.txt') return body(200, TEXT, storeRobots(host));
    const j = appIndexFromPath(host, path);
    if (j === null || j >= this.options.apps) return body(404, HTML, storeNotFoundPage());
    const app = appSpec(this.options.seed, j);
    if (!path.includes(app.store === 'google_play' ? `id=${app.bundleId}` : `/${app.storeId}`)) return body(404, HTML, storeNotFoundPage());
    return body(200, HTML, storePage(app));
  }

  private hostileRoute(kind: HostileKind, host: string, path: string): Route {
    const bare = path.split('?')[0]!;
    if (bare === '/robots.txt') return NOT_FOUND;
    const file = bare === '/ads.txt' || bare === '/app-ads.txt';
    switch (kind) {
      case 'redirect-loop':
        if (file) return redirect('/loop/a', 302);
        if (bare === '/loop/a') return redirect('/loop/b', 302);
        if (bare === '/loop/b') return redirect('/ads.txt', 302);
        return NOT_FOUND;
      case 'redirect-chain': {
        // Twelve hops inside the root: more than the 10 a crawler may follow.
        const n = file ? 0 : Number(/^\/chain\/(\d+)$/.exec(bare)?.[1] ?? NaN);
        if (Number.isNaN(n)) return NOT_FOUND;
        return n < 12 ? redirect(`/chain/${n + 1}`, 302) : body(200, TEXT, benignFile(host));
      }
      case 'redirect-out-twice':
        return file ? redirect(`https://${syntheticName(this.options.seed, 'manager', 0)}/r/${host}.txt`, 302) : NOT_FOUND;
      case 'invalid-utf8':
        return file ? body(200, TEXT, invalidUtf8File()) : NOT_FOUND;
      case 'tls-wrong-name': case 'tls-expired': case 'tls-abort': case 'https-only':
        return file ? body(200, TEXT, benignFile(host)) : NOT_FOUND;
      default:
        return file ? { type: 'hostile', kind } : NOT_FOUND;
    }
  }

  describe(host: string): HostSpec {
    const behaviour = this.behaviour(host);
    const base: HostSpec = { host, role: 'unknown', root: null, rank: null, behaviour, canonicalHost: null, hostile: null, adsOutcome: null, subdomains: [], partners: [], expect: {} };
    const hostile = parseHostileHost(host);
    if (hostile) return { ...base, role: 'hostile', root: hostile.root, hostile: hostile.kind, expect: { 'ads.txt': { status: hostileExpectation(hostile.kind) } } };
    if (host === PLAY_HOST || host === APPLE_HOST) return { ...base, role: 'store', root: host.split('.').slice(-2).join('.') };
    if (KNOWN_AD_SYSTEMS.has(host) || this.tailAdSystems.has(host)) return { ...base, role: 'ad_system', root: host, expect: { 'sellers.json': { status: 'ok' } } };
    const p = parseSyntheticHost(this.options.seed, host);
    if (!p) return base;
    if (p.cls === 'manager' || p.cls === 'adsystem') return { ...base, role: p.cls === 'manager' ? 'manager' : 'ad_system', root: p.root };
    const site = this.site(p.cls, p.index);
    const canonicalHost = site.canonical === 'www' ? `www.${site.root}` : site.root;
    const common = { ...base, root: site.root, rank: p.cls === 'root' ? p.index : null, adsOutcome: site.outcome, canonicalHost: host === canonicalHost ? null : canonicalHost };
    if (p.sub === '' || p.sub === 'www') {
      const role = p.cls === 'root' ? (p.sub === 'www' ? 'www' : 'root') : p.cls;
      const robots = { status: site.robots === 'none' ? 'not_found' : site.robots === 'server_error' ? 'http_error' : 'ok' };
      return { ...common, role, subdomains: site.subdomains.map((s) => s.host), partners: site.partners, expect: { [site.fileKind]: expectedFile(site), 'robots.txt': robots } };
    }
    const sub = site.subdomains.find((s) => s.host === host && isWithin(s.host, site.root));
    const plan = sub?.hasFile ? subdomainRecords(this.options.seed, host) : null;
    return {
      ...common, role: 'subdomain', canonicalHost: null,
      subdomains: plan ? plan.variables.map((v) => v.slice('subdomain='.length)) : [],
      expect: { 'ads.txt': plan ? { status: 'ok', records: plan.records.length, variables: plan.variables.length } : { status: site.outcome === 'soft_404' ? 'html' : 'not_found' } },
    };
  }
}

/** files.status a crawl records for a hostile host's /ads.txt (the transport falls back where it can). */
export function hostileExpectation(kind: HostileKind): string {
  switch (kind) {
    case 'redirect-loop': case 'redirect-chain': case 'redirect-out-twice': return 'redirect_error';
    case 'endless': case 'gzip-bomb': case 'big-file': case 'huge-line': return 'too_large';
    case 'trickle': case 'stall': case 'reset': return 'unreachable';
    default: return 'ok'; // invalid-utf8 (replaced, noted), TLS failures and https-only (other scheme works)
  }
}
