// The fetch stack's public API (docs/reference/fetch.md): one Fetcher, composed of small policies.
export type { FetchKind, FetchRequest, FetchOutcome, FetchRow, ResponseMeta, BodyConsumer, Validators } from './types.js';
export { fetchKinds } from './types.js';
export { Fetcher, type FetcherStats } from './fetcher.js';
export { FetchCounters } from './fetch-counters.js';
export { FETCH_DEFAULTS, resolveFetchConfig, loadCaCerts, defaultMaxBytes, defaultTotalTimeoutMs, type FetchConfig, type FetchOptions } from './config.js';
export { parseConnectTo, matchConnectTo, formatConnectTo, type ConnectTo } from './connect-to.js';
export { systemResolver, dnsResolver, type HostResolver } from './dns-cache.js';
export { parseDnsServer, formatDnsServer, type DnsServer } from './dns-servers.js';
export { networkManifest, type NetworkManifest } from './network-manifest.js';
export { classifyDnsError, isDnsErrorCode, DNS_ERROR_CODES, type DnsErrorCode } from './dns-errors.js';
export { isBlockedAddress, AddressAllowList, parseAllowCidr } from './address-guard.js';
export { type FetchErrorCode, classifyError } from './errors.js';
export { redirectPolicies, REDIRECT_STATUSES } from './redirect-policy.js';
