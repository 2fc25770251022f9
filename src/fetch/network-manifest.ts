import type { FetchConfig } from './config.js';
import { formatConnectTo } from './connect-to.js';

/**
 * What the run manifest records of how the crawl reached the web (its `network` section): which resolvers it
 * asked, and every exemption from the address guard an operator made (`--allow-addresses`
 * networks, `--connect-to` targets). A snapshot taken with either is not a picture of the public
 * web, and whoever reads it later must be able to tell.
 */
export interface NetworkManifest {
  /** `--dns-server` values, or 'system' (/etc/resolv.conf). */
  dns_servers: string[] | 'system';
  dns_timeout_ms: number;
  dns_tries: number;
  dns_cache_size: number;
  /** Networks exempt from the private-address guard (`--allow-addresses`); [] by default. */
  allow_addresses: string[];
  /** The guard itself (false only when a library caller turned it off). */
  block_private_addresses: boolean;
  /** `--connect-to` rules in curl's spelling; their targets are exempt from the guard. */
  connect_to: string[];
}

export function networkManifest(c: FetchConfig): NetworkManifest {
  return {
    dns_servers: c.dnsServers.length > 0 ? [...c.dnsServers] : 'system',
    dns_timeout_ms: c.dnsTimeoutMs,
    dns_tries: c.dnsTries,
    dns_cache_size: c.dnsCacheSize,
    allow_addresses: [...c.allowAddresses],
    block_private_addresses: c.blockPrivateAddresses,
    connect_to: c.connectTo.map(formatConnectTo),
  };
}
