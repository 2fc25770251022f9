/**
 * The simulated web behind real DNS (`simweb --dns PORT`): its DNS server, and its
 * HTTP/HTTPS server on ports 80 and 443 of the addresses that DNS hands out, so that a crawl
 * reaches it with `--dns-server` and `--allow-addresses` and no `--connect-to` at all. Where the
 * addresses live and why: net-layout.ts; the DNS answers: dns-server.ts; the hosts that never
 * answer a SYN: syn-dead.ts.
 *
 * Binding ports 80/443 needs root or CAP_NET_BIND_SERVICE; without it start fails with
 * `SIMWEB_BIND` and says so (tests that need it skip).
 */
import { SimDnsServer, type DnsServerStats } from './dns-server.js';
import { CDN_ADDRESSES } from './calibration.js';
import { NetLayout, type NetLayoutOptions } from './net-layout.js';
import type { HostSpec } from './route.js';
import type { SimwebServer } from './server.js';
import { startSynDead } from './syn-dead.js';

/** The ports a crawl without --connect-to connects to (the URL's defaults). */
export const WEB_PORTS = [80, 443] as const;

export interface RealDnsOptions extends Pick<NetLayoutOptions, 'seed' | 'hosts' | 'listedRoot' | 'knows'> {
  /** DNS port on 127.0.0.1 (UDP and TCP). @default 0 (a free port) */
  port: number;
  /** Second octet of the 127.B.0.0/16 block. @default a free one, chosen at random */
  block?: number;
}

export interface SimwebDns {
  /** DNS port on 127.0.0.1 (UDP and TCP). */
  port: number;
  /** Second octet of this instance's 127.B.0.0/16. */
  block: number;
  /** The networks a crawl must allow (`--allow-addresses`). */
  allowCidrs: string[];
  /** The AAAA answer of IPv6-only hosts: '::1', or '::ffff:127.B.0.254' when ::1 was taken. */
  ipv6Address: string;
  /** The SYN-dead addresses were checked to leave a connect hanging. */
  synDeadVerified: boolean;
  /** What each name resolves to (tests ask it what to expect). */
  layout: NetLayout;
  /** ['--dns-server', '127.0.0.1:P', '--allow-addresses', CIDR, …]: with --cacert, what points a crawl here. */
  crawlArgs: string[];
  stats(): DnsServerStats;
  close(): Promise<void>;
}

export class SimwebBindError extends Error {
  readonly code = 'SIMWEB_BIND';
}

async function bindAll(server: SimwebServer, addresses: readonly string[]): Promise<void> {
  // In parallel batches: thousands of listens one by one would take seconds.
  for (let i = 0; i < addresses.length; i += 256) {
    await Promise.all(addresses.slice(i, i + 256).flatMap((a) => WEB_PORTS.map((p) => server.listenAlso(p, a))));
  }
}

function bindError(err: unknown, where: string): Error {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES' || code === 'EPERM') return new SimwebBindError(`simweb --dns: cannot listen on ${where} (${code}): ports 80 and 443 need root or CAP_NET_BIND_SERVICE`);
  return err as Error;
}

/** Starts the DNS server and binds the web's addresses; `server` must already be listening. */
export async function startRealDns(server: SimwebServer, o: RealDnsOptions): Promise<SimwebDns> {
  // A block no other instance holds: probe its first CDN address; a clash moves to another block.
  let block = o.block ?? 16 + Math.floor(Math.random() * 230);
  let ipv6Address = '::1';
  for (let attempt = 0; ; attempt++) {
    const probe = new NetLayout({ ...o, block, ipv6Address });
    try {
      await server.listenAlso(WEB_PORTS[0], probe.cdnAddress(0));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || o.block !== undefined || attempt >= 20) throw bindError(err, `${probe.cdnAddress(0)}:80`);
      block = 16 + Math.floor(Math.random() * 230);
    }
  }
  // ::1 is one address for the whole machine: the first instance takes it, others map (net-layout.ts).
  try {
    await bindAll(server, ['::1']);
  } catch {
    ipv6Address = `::ffff:127.${block}.0.254`;
  }
  const layout = new NetLayout({ ...o, block, ipv6Address });
  const addresses = [
    ...Array.from({ length: CDN_ADDRESSES }, (_, i) => layout.cdnAddress(i)),
    ...Array.from({ length: layout.sharedCount }, (_, i) => layout.sharedAddress(i)),
    ...(ipv6Address === '::1' ? [] : [layout.mappedV4]),
  ];
  try {
    await server.listenAlso(WEB_PORTS[1], layout.cdnAddress(0));
    await bindAll(server, addresses.slice(1));
  } catch (err) {
    throw bindError(err, `127.${block}.x.y:80/443`);
  }
  const synDead = await startSynDead(layout.synDeadAddresses(), WEB_PORTS);
  const dns = new SimDnsServer(layout);
  let port: number;
  try {
    port = await dns.listen(o.port);
  } catch (err) {
    synDead.close();
    throw err;
  }
  return {
    port, block, ipv6Address, layout,
    allowCidrs: layout.allowCidrs,
    synDeadVerified: synDead.verified,
    crawlArgs: ['--dns-server', `127.0.0.1:${port}`, ...layout.allowCidrs.flatMap((c) => ['--allow-addresses', c])],
    stats: () => structuredClone(dns.stats),
    async close() {
      synDead.close();
      await dns.close();
    },
  };
}

/**
 * What a correct crawl through this DNS records for a host: its listed site's zone fails (any
 * DNS fate but ok) or its address never answers the SYN, and every file it would have had is
 * `unreachable`; any other host is as `spec` says.
 */
export function withDnsExpectation(layout: NetLayout, spec: HostSpec): HostSpec {
  const p = layout.plan(spec.host);
  if (p.fate === 'ok' && p.placement !== 'syn_dead') return spec;
  if (p.fate === 'unknown') return spec;
  const expect: HostSpec['expect'] = {};
  for (const k of Object.keys(spec.expect) as Array<keyof HostSpec['expect']>) expect[k] = { status: 'unreachable' };
  return { ...spec, expect };
}
