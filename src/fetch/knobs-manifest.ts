import type { FetchConfig } from './config.js';
import { formatConnectTo } from './connect-to.js';

/**
 * Every knob of the fetch layer as the run used it (docs/guide/operating.md#what-the-run-manifest-records),
 * whether it came from a default, `--config FILE` or a flag: what an operator needs to explain a
 * night's figures. Functions (resolver, clock) are not knobs and are left out; the resolvers asked
 * and the address-guard exemptions are the manifest's `network` section.
 */
export function fetchKnobsManifest(c: FetchConfig): Record<string, unknown> {
  return {
    concurrency: c.concurrency,
    per_host: c.perHost,
    per_ip: c.perIp,
    connect_timeout_ms: c.connectTimeoutMs,
    unresponsive_after: c.unresponsiveAfter,
    headers_timeout_ms: c.headersTimeoutMs,
    total_timeout_ms: { ...c.totalTimeoutMs },
    max_bytes: { ...c.maxBytes },
    retries: c.retries,
    retry_base_ms: c.retryBaseMs,
    retry_max_ms: c.retryMaxMs,
    max_retry_after_ms: c.maxRetryAfterMs,
    wall_hold_ms: c.wallHoldMs,
    ip_backoff_ms: c.ipBackoffMs,
    dns_cache_size: c.dnsCacheSize,
    dns_ttl_ms: c.dnsTtlMs,
    dns_negative_ttl_ms: c.dnsNegativeTtlMs,
    keep_alive_timeout_ms: c.keepAliveTimeoutMs,
    block_private_addresses: c.blockPrivateAddresses,
    connect_to: c.connectTo.map(formatConnectTo),
    ca_certs: c.caCerts.length,
  };
}
