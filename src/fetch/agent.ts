import type { Socket } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, buildConnector, errors } from 'undici';
import type { FetchConfig } from './config.js';
import { routeKey, type RouteTable } from './routes.js';

/**
 * undici's connector with an exact connect deadline. undici's own connect timeout fires with
 * 0.5–1 s granularity (bakeoff.md), and a request's abort signal is not looked at until the
 * TCP + TLS handshake ends, so a server that accepts and never answers the ClientHello would
 * otherwise hold a request far past its deadline.
 */
function exactTimeoutConnector(options: buildConnector.BuildOptions, timeoutMs: number): buildConnector.connector {
  const base = buildConnector({ ...options, timeout: 0 });
  return (opts, callback) => {
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      socket?.destroy();
      callback(new errors.ConnectTimeoutError(`connect timeout after ${timeoutMs} ms`), null);
    }, timeoutMs);
    const socket = base(opts, (...args) => {
      if (done) {
        if (args[1]) args[1].destroy();
        return;
      }
      done = true;
      clearTimeout(timer);
      callback(...args);
    }) as unknown as Socket | undefined;
  };
}

/**
 * Connects to the address the exchange chose for the origin (routes.ts), not to whatever the host
 * name resolves to now: the pool is per host, the address is per request. TLS SNI and the
 * certificate check stay on the host name (undici derives them from the origin / Host header).
 */
function routedConnector(routes: RouteTable, connect: buildConnector.connector): buildConnector.connector {
  return (opts, callback) => {
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    const route = routes.lookup(routeKey(opts.protocol, opts.hostname, port));
    if (route === undefined) {
      // Unreachable by construction (an exchange holds its route while its request is dispatched);
      // refusing is the safe answer: never fall back to resolving the name ourselves.
      callback(Object.assign(new Error(`no route chosen for ${opts.protocol}//${opts.hostname}:${port}`), { code: 'ERR_ADSNAP_NO_ROUTE' }), null);
      return;
    }
    return connect({ ...opts, hostname: route.address, port: String(route.port) }, callback);
  };
}

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
export function createAgent(config: FetchConfig, routes: RouteTable): Agent {
  const tlsOptions =
    config.caCerts.length > 0
      ? // `ca` replaces Node's roots, so add ours to them (--cacert adds trust, never removes it).
        // One context, built once: `ca` per connection would re-parse ~140 root PEMs per handshake.
        { secureContext: createSecureContext({ ca: [...rootCertificates, ...config.caCerts] }) }
      : {};
  return new Agent({
    connect: routedConnector(routes, exactTimeoutConnector(tlsOptions, config.connectTimeoutMs)),
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
