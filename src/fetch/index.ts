// The fetch stack's public API (issue 4): one Fetcher, composed of small policies.
export type { FetchKind, FetchRequest, FetchOutcome, FetchRow, ResponseMeta, BodyConsumer, Validators } from './types.js';
export { fetchKinds } from './types.js';
export { Fetcher, type FetcherStats } from './fetcher.js';
export { FETCH_DEFAULTS, resolveFetchConfig, loadCaCerts, defaultMaxBytes, defaultTotalTimeoutMs, type FetchConfig, type FetchOptions } from './config.js';
export { parseConnectTo, matchConnectTo, formatConnectTo, type ConnectTo } from './connect-to.js';
export { systemResolver, type HostResolver } from './dns-cache.js';
export { isBlockedAddress } from './address-guard.js';
export { type FetchErrorCode, classifyError } from './errors.js';
export { redirectPolicies, REDIRECT_STATUSES } from './redirect-policy.js';
