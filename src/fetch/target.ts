import { isIP } from 'node:net';
import { toAsciiHost } from '../util/domain.js';
import { allowedAddresses, type AddressAllowList } from './address-guard.js';
import { matchConnectTo, type ConnectTo } from './connect-to.js';
import type { DnsCache } from './dns-cache.js';
import { classifyDnsError } from './dns-errors.js';
import { FetchFailure } from './errors.js';
import { hostOrigin, routeKey } from './routes.js';

/** Where one request goes: the address we connect to, and what the server is told. */
export interface Target {
  /** Host name of the URL (ASCII, lower-case, no brackets): the politeness key. */
  host: string;
  /** Address connected to. */
  ip: string;
  /** Port connected to (the URL's, or a --connect-to PORT2). */
  connectPort: number;
  /** undici origin: scheme, host and the URL's port; one pool per host (agent.ts). */
  origin: string;
  /** Key of the origin in the RouteTable, where the connector finds `ip` and `connectPort`. */
  routeKey: string;
  /** Host header (and hence TLS SNI): the URL's host, with its port when not the default. */
  hostHeader: string;
  /** Path and query sent. */
  path: string;
  /** The address came from a --connect-to rule (exempt from the address guard). */
  viaConnectTo: boolean;
}

export interface TargetDeps {
  connectTo: readonly ConnectTo[];
  dns: DnsCache;
  /** Resolves --connect-to HOST2 names (operator-given: /etc/hosts honoured). */
  operatorDns: DnsCache;
  blockPrivateAddresses: boolean;
  /** Networks the operator exempted from the guard (`--allow-addresses`). @default none */
  allowList?: AddressAllowList | null;
}

/** Resolves where `url` is fetched from. Throws FetchFailure (`dns_*` by class, `blocked_address`, `bad_url`). */
export async function resolveTarget(url: URL, d: TargetDeps): Promise<Target> {
  const rawHost = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const host = isIP(rawHost) ? rawHost.toLowerCase() : toAsciiHost(rawHost);
  if (host === '') throw new FetchFailure('bad_url', `no host in ${url.href}`);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const rule = matchConnectTo(d.connectTo, host, port);
  const connectPort = rule?.toPort ?? port;
  const viaConnectTo = rule !== null && rule.toHost !== null;
  const connectHost = rule?.toHost ?? host;

  const cache = viaConnectTo ? d.operatorDns : d.dns;
  let addresses: string[];
  try {
    addresses = cache.cached(connectHost) ?? (await cache.resolve(connectHost));
  } catch (err) {
    // The name gave no address; the class says why (NXDOMAIN, SERVFAIL, REFUSED, time-out, no A/AAAA).
    throw new FetchFailure(classifyDnsError(err), `cannot resolve ${connectHost}: ${(err as Error)?.message ?? err}`, { cause: err });
  }
  if (!viaConnectTo && d.blockPrivateAddresses) {
    // spec-decisions: never connect to loopback/private/link-local/metadata addresses DNS gave.
    // An operator's --allow-addresses networks pass (a test network such as `simweb --dns`).
    addresses = allowedAddresses(addresses, d.allowList);
    if (addresses.length === 0) throw new FetchFailure('blocked_address', `${host} resolves only to blocked addresses`);
  }
  return {
    host,
    ip: addresses[0]!,
    connectPort,
    origin: hostOrigin(url.protocol, host, port),
    routeKey: routeKey(url.protocol, host, port),
    hostHeader: url.host,
    path: `${url.pathname}${url.search}`,
    viaConnectTo,
  };
}
