import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import type { FetchConfig } from './config.js';

/**
 * The one undici Agent of a Fetcher. Requests are dispatched to the *address* (origin
 * `https://203.0.113.7:443`) with the URL's host in the Host header; undici derives the TLS SNI
 * and certificate check from the Host header, so the server sees an ordinary request while we
 * decide where to connect (address guard, per-IP cap, --connect-to). Pools are therefore per
 * address, not per host name: a crawl of a million hosts on a few thousand hosting IPs does not
 * pile up a million idle pools (bakeoff.md: 579 MB after 20k hosts with per-host pools).
 */
export function createAgent(config: FetchConfig): Agent {
  return new Agent({
    connect: {
      timeout: config.connectTimeoutMs,
      // `ca` replaces Node's roots, so add ours to them (--cacert adds trust, never removes it).
      // Built once: passing `ca` per connection would re-parse ~140 root PEMs on every handshake.
      ...(config.caCerts.length > 0 ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...config.caCerts] }) } : {}),
    },
    keepAliveTimeout: config.keepAliveTimeoutMs,
    keepAliveMaxTimeout: config.keepAliveTimeoutMs,
    // Our own exact timers (AbortSignal-driven) enforce the headers and whole-request deadlines;
    // undici's coarse ones (0.5–1 s granularity) are only a backstop, set just behind ours.
    headersTimeout: config.headersTimeoutMs + 1000,
    bodyTimeout: Math.max(...Object.values(config.totalTimeoutMs)) + 1000,
    pipelining: 1,
  });
}
