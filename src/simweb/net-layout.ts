/**
 * Where the simulated web's hosts live behind its DNS (`simweb --dns`): which names fail and how, which
 * address each site has (CDN-style sharing, shared hosting, SYN-dead addresses, IPv6-only), and
 * which names reach it through CNAME chains. A pure function of the seed and the name, so the
 * DNS server needs no table and a test can ask what a name will do (calibration.ts cites the
 * shares).
 *
 * Addresses are taken in one /16 of the loopback network, 127.B.0.0/16, B chosen per instance so
 * that several simulated webs on one machine do not collide on ports 80/443:
 *   127.B.0.1–40        CDN addresses (CDN_ADDRESSES)
 *   127.B.0.250–253     SYN-dead addresses (a listener that never accepts: syn-dead.ts)
 *   127.B.1–9.1–250     shared-hosting addresses (up to 2,048)
 * IPv6-only hosts answer AAAA `::1` (the only IPv6 loopback address) when this instance holds
 * [::1]:80/443, else the IPv4-mapped `::ffff:127.B.0.254`, an IPv6 literal the kernel carries
 * over IPv4 to this instance's own address: the crawl still resolves AAAA only and connects to
 * an IPv6 literal, without two instances fighting over ::1.
 */
import { rootDomain } from '../util/domain.js';
import {
  CDN_ADDRESSES, CDN_SHARE, CNAME_MAX_LINKS, CNAME_SHARE_SHARED, DNS_FATE_WEIGHTS, DNS_SLOW_MS, DNS_SLOW_SHARE,
  IPV6_ONLY_SHARE, SHARED_ADDRESSES, SITES_PER_SHARED_ADDRESS, SYN_DEAD_SHARE,
} from './calibration.js';
import { Rng, hash32 } from './prng.js';

export type DnsFate = keyof typeof DNS_FATE_WEIGHTS;
export type Placement = 'cdn' | 'shared' | 'syn_dead' | 'ipv6_only' | 'infra';

/** What the DNS server answers for one name. */
export interface NamePlan {
  fate: DnsFate | 'unknown';
  /** Delay before the answer (slow resolutions), ms. */
  delayMs: number;
  placement: Placement | null;
  /** The A address, or null (IPv6-only, or a failing name). */
  v4: string | null;
  /** The AAAA address, or null. */
  v6: string | null;
  /** CNAME links from the name to the name holding the address (empty: the name holds it). */
  chain: string[];
}

export interface NetLayoutOptions {
  seed: number;
  /** Second octet of this instance's 127.B.0.0/16. */
  block: number;
  /** Listed sites (for the shared-hosting pool's size). */
  hosts: number;
  /** The AAAA answer of IPv6-only hosts ('::1' when this instance holds [::1]:80/443). */
  ipv6Address: string;
  /** The registrable root of a listed synthetic site (fates apply to it), else null. */
  listedRoot(host: string): string | null;
  /** True for a name the simulated web serves (others are NXDOMAIN). @default every name (as under --connect-to) */
  knows?(host: string): boolean;
}

/** Suffix of the CNAME chain names (`e<k>-<h>-<address>.cdn.simweb.test`). */
export const CHAIN_SUFFIX = '.cdn.simweb.test';
const CHAIN_RE = /^e(\d)-([0-9a-f]{8})-([0-9a-z-]+)\.cdn\.simweb\.test$/;

export class NetLayout {
  readonly sharedCount: number;

  constructor(private readonly o: NetLayoutOptions) {
    this.sharedCount = Math.min(SHARED_ADDRESSES.max, Math.max(SHARED_ADDRESSES.min, Math.ceil(o.hosts / SITES_PER_SHARED_ADDRESS)));
  }

  /** The networks a crawl must allow (`--allow-addresses`). */
  get allowCidrs(): string[] {
    return [`127.${this.o.block}.0.0/16`, ...(this.o.ipv6Address === '::1' ? ['::1/128'] : [])];
  }

  cdnAddress(i: number): string {
    return `127.${this.o.block}.0.${1 + i}`;
  }

  sharedAddress(i: number): string {
    return `127.${this.o.block}.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
  }

  /** SYN-dead addresses: few, since each needs its accept queue filled. */
  synDeadAddresses(): string[] {
    return [0, 1, 2, 3].map((i) => `127.${this.o.block}.0.${250 + i}`);
  }

  /** The IPv4 address behind the IPv4-mapped AAAA answer, when ::1 is not ours. */
  get mappedV4(): string {
    return `127.${this.o.block}.0.254`;
  }

  /** How a listed root resolves (its www and subdomains follow it). */
  fateOf(root: string): DnsFate {
    return Rng.for(this.o.seed, 'dns-fate', root).weighted(DNS_FATE_WEIGHTS);
  }

  /** Where a site lives, by its registrable root (apex, www and subdomains share the address). */
  placementOf(root: string, listed: boolean): Placement {
    if (!listed) return 'infra';
    const rng = Rng.for(this.o.seed, 'placement', root);
    if (rng.chance(SYN_DEAD_SHARE)) return 'syn_dead';
    if (rng.chance(IPV6_ONLY_SHARE)) return 'ipv6_only';
    return rng.chance(CDN_SHARE) ? 'cdn' : 'shared';
  }

  plan(name: string): NamePlan {
    const host = name.toLowerCase().replace(/\.$/, '');
    const chain = CHAIN_RE.exec(host);
    if (chain) return this.chainPlan(chain);
    if (this.o.knows && !this.o.knows(host)) return { fate: 'unknown', delayMs: 0, placement: null, v4: null, v6: null, chain: [] };
    const listed = this.o.listedRoot(host);
    const root = listed ?? rootDomain(host) ?? host;
    const fate: DnsFate = listed ? this.fateOf(listed) : 'ok';
    const slow = listed !== null && Rng.for(this.o.seed, 'dns-slow', host).chance(DNS_SLOW_SHARE);
    const delayMs = slow ? DNS_SLOW_MS.min + (hash32(host, this.o.seed ^ 0x5d) % (DNS_SLOW_MS.max - DNS_SLOW_MS.min)) : 0;
    if (fate !== 'ok') return { fate, delayMs, placement: null, v4: null, v6: null, chain: [] };
    const placement = this.placementOf(root, listed !== null);
    const { v4, v6 } = this.addressOf(root, placement);
    const links = this.chainLength(host, placement);
    const token = hash32(host, this.o.seed ^ 0xc4a1).toString(16).padStart(8, '0');
    const target = v4 ?? 'v6';
    const names = Array.from({ length: links }, (_, i) => `e${links - 1 - i}-${token}-${target.replace(/\./g, '-')}${CHAIN_SUFFIX}`);
    return { fate, delayMs, placement, v4, v6, chain: names };
  }

  private addressOf(root: string, placement: Placement): { v4: string | null; v6: string | null } {
    const h = hash32(root, this.o.seed ^ 0xadd7);
    switch (placement) {
      case 'cdn': return { v4: this.cdnAddress(h % CDN_ADDRESSES), v6: null };
      case 'syn_dead': { const d = this.synDeadAddresses(); return { v4: d[h % d.length]!, v6: null }; }
      case 'ipv6_only': return { v4: null, v6: this.o.ipv6Address };
      default: return { v4: this.sharedAddress(h % this.sharedCount), v6: null };
    }
  }

  /** CDN names always go through the provider's edge name; a share of the others too. */
  private chainLength(host: string, placement: Placement): number {
    const rng = Rng.for(this.o.seed, 'cname', host);
    if (placement === 'infra' || placement === 'syn_dead') return 0;
    if (placement !== 'cdn' && !rng.chance(CNAME_SHARE_SHARED)) return 0;
    return 1 + rng.int(CNAME_MAX_LINKS);
  }

  /** A link of a chain: `e<k>-…` points to `e<k-1>-…`, and `e0-…` holds the address. */
  private chainPlan(m: RegExpExecArray): NamePlan {
    const k = Number(m[1]);
    const target = m[3]!;
    const v4 = target === 'v6' ? null : target.replace(/-/g, '.');
    const v6 = target === 'v6' ? this.o.ipv6Address : null;
    const placement: Placement = v4 === null ? 'ipv6_only' : 'shared';
    const rest = Array.from({ length: k }, (_, i) => `e${k - 1 - i}-${m[2]}-${target}${CHAIN_SUFFIX}`);
    return { fate: 'ok', delayMs: 0, placement, v4, v6, chain: rest };
  }
}
