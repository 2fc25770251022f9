import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import type { FetchConfig } from './config.js';
import { routedConnector } from './connector.js';
import type { RouteTable } from './routes.js';
import type { UnresponsiveAddresses } from './unresponsive.js';

/**
 * The one undici Agent of a Fetcher. Requests are dispatched to the *host* origin
 * (`https://example.com:443`) and the connector connects to the address chosen for it (address
 * guard, per-IP cap, --connect-to; routes.ts). So a keep-alive connection is reused for every
 * request to one site (robots.txt → ads.txt → redirects → HTTP fallback) and its TLS SNI never
 * changes. Dispatching to the address instead (one pool for many hosts) made undici drop and
 * re-handshake the connection whenever the next request's SNI differed ("servername changed"):
 * under --connect-to every host shares one address, and a shared-hosting IP is no different.
 *
 * Pools per host do not pile up: undici's Agent deletes an origin's pool once all its connections
 * have closed, and `keepAliveTimeout` (a few seconds: long enough for one site's requests in a
 * row) closes idle ones, so a million-host crawl holds pools only for recently fetched hosts.
 */
export function createAgent(config: FetchConfig, routes: RouteTable, unresponsive?: UnresponsiveAddresses): Agent {
  // One context for every connection, built once (without one Node builds a context per
  // connection). `ca` replaces Node's roots, so --cacert certificates are added to them: they
  // add trust, never remove it.
  const secureContext = createSecureContext(config.caCerts.length > 0 ? { ca: [...rootCertificates, ...config.caCerts] } : {});
  return new Agent({
    connect: routedConnector({ routes, timeoutMs: config.connectTimeoutMs, secureContext, unresponsive }),
    keepAliveTimeout: config.keepAliveTimeoutMs,
    keepAliveMaxTimeout: config.keepAliveTimeoutMs,
    // Our own exact timers (AbortSignal-driven) enforce the headers and whole-request deadlines;
    // undici's coarse ones are only a backstop, set just behind ours.
    headersTimeout: config.headersTimeoutMs + 1000,
    bodyTimeout: Math.max(...Object.values(config.totalTimeoutMs)) + 1000,
    pipelining: 1,
    // Politeness lets at most perHost requests at a time go to one host, so its pool never needs
    // more connections. Unbounded, undici's Pool opened a second connection (a second TLS
    // handshake) when the next request came before the last one's connection was marked free.
    // With one (the default) the pool is a single Client that queues the request on its socket.
    connections: config.perHost,
  });
}
