import net from 'node:net';
import tls, { type SecureContext } from 'node:tls';
import { errors, type buildConnector } from 'undici';
import { routeKey, type RouteTable } from './routes.js';

/**
 * The Agent's connector: opens the TCP (and TLS) connection for an undici pool.
 *
 * - It connects to the address the exchange chose for the origin (routes.ts), never to whatever
 *   the host name resolves to now: the pool is per host, the address per request (address guard,
 *   per-IP cap, --connect-to).
 * - TLS SNI and the certificate check are on the host name (the origin's), or none for an IP
 *   literal (RFC 6066 §3: SNI carries host names only; Node then checks the IP against the cert).
 * - The connect deadline is exact. undici's own fires with 0.5–1 s granularity (bakeoff.md), and
 *   a request's abort signal is not looked at until the TCP + TLS handshake ends, so a server
 *   that accepts and never answers the ClientHello would hold a request far past its deadline.
 * - No TLS session cache. A crawl meets each host about once and a host's requests share one
 *   keep-alive connection, so a cached session is almost never resumed; undici's cache costs
 *   a serialized session, a WeakRef and a FinalizationRegistry entry per ticket (two per TLS 1.3
 *   handshake) and a scan of the cache each time: the largest allocation of a crawl after
 *   certificate checks in a profile. Without a 'session' listener Node does not even hand
 *   tickets to JavaScript.
 */
export interface ConnectorOptions {
  routes: RouteTable;
  /** TCP + TLS handshake deadline. */
  timeoutMs: number;
  /** Trust store (Node's roots, plus --cacert certificates), shared by every connection. */
  secureContext: SecureContext;
}

export function routedConnector(o: ConnectorOptions): buildConnector.connector {
  return (opts, callback) => {
    const https = opts.protocol === 'https:';
    const port = Number(opts.port) || (https ? 443 : 80);
    const route = o.routes.lookup(routeKey(opts.protocol, opts.hostname, port));
    if (route === undefined) {
      // Unreachable by construction (an exchange holds its route while its request is out);
      // refusing is the safe answer: never fall back to resolving the name here.
      callback(Object.assign(new Error(`no address chosen for ${opts.protocol}//${opts.hostname}:${port}`), { code: 'ERR_ADSNAP_NO_ROUTE' }), null);
      return;
    }
    const socket: net.Socket = https
      ? tls.connect({
          host: route.address,
          port: route.port,
          servername: opts.servername || (net.isIP(opts.hostname) ? undefined : opts.hostname),
          secureContext: o.secureContext,
          ALPNProtocols: ['http/1.1'],
        })
      : net.connect({ host: route.address, port: route.port });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 60_000);

    let done = false;
    const finish = (err: Error | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.off(https ? 'secureConnect' : 'connect', onConnect);
      // The 'error' listener stays (a no-op from now on), as undici's own connector leaves it:
      // the socket is never without one before undici attaches its handlers.
      if (err) {
        socket.destroy();
        callback(err, null);
      } else callback(null, socket);
    };
    const onConnect = () => finish(null);
    const timer = setTimeout(() => finish(new errors.ConnectTimeoutError(`connect timeout after ${o.timeoutMs} ms`)), o.timeoutMs);
    socket.once(https ? 'secureConnect' : 'connect', onConnect);
    socket.once('error', finish);
  };
}
