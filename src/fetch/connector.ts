import net from 'node:net';
import tls, { type SecureContext } from 'node:tls';
import { errors, type buildConnector } from 'undici';
import { FetchFailure } from './errors.js';
import { routeKey, type RouteTable } from './routes.js';
import type { UnresponsiveAddresses } from './unresponsive.js';

/**
 * The Agent's connector: opens the TCP (and TLS) connection for an undici pool.
 *
 * - It connects to the address the exchange chose for the origin (routes.ts), never to whatever
 *   the host name resolves to now: the pool is per host, the address per request (address guard,
 *   per-IP cap, --connect-to).
 * - TLS SNI and the certificate check are on the host name (the origin's), or none for an IP
 *   literal (RFC 6066 §3: SNI carries host names only; Node then checks the IP against the cert).
 * - The connect deadline is exact. undici's own fires with 0.5–1 s granularity (docs/choices.md#http-client), and
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
  /** Addresses that let connects time out before the TCP handshake (unresponsive.ts). */
  unresponsive?: UnresponsiveAddresses;
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
    const addressKey = `${route.address}:${route.port}`;
    if (o.unresponsive?.held(addressKey)) {
      callback(new FetchFailure('unresponsive', `${addressKey} did not answer a connect earlier in this run; not tried`), null);
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
    const timer = setTimeout(() => {
      // Only a SYN left unanswered counts against the address; a TLS handshake that stalls does not.
      if (socket.connecting) o.unresponsive?.timedOut(addressKey);
      finish(new errors.ConnectTimeoutError(`connect timeout after ${o.timeoutMs} ms`));
    }, o.timeoutMs);
    if (o.unresponsive) socket.once('connect', () => o.unresponsive!.connected(addressKey));
    socket.once(https ? 'secureConnect' : 'connect', onConnect);
    socket.once('error', finish);
    // Registered before undici's own listeners, so they run first.
    socket.on('end', onEndUnpause);
    socket.on('error', onResetUnpause);
  };
}

interface UndiciParser {
  paused?: boolean;
  resume?: () => void;
  ptr?: number | null;
  llhttp?: { llhttp_resume(ptr: number): void };
}

let parserSymbol: symbol | undefined;

function undiciParser(socket: net.Socket): UndiciParser | null {
  parserSymbol ??= Object.getOwnPropertySymbols(socket).find((s) => s.description === 'parser');
  if (parserSymbol === undefined) return null;
  return (socket as unknown as Record<symbol, UndiciParser | null>)[parserSymbol] ?? null;
}

/**
 * Works around an undici 7 crash (nodejs/undici#5360; fixed upstream in undici 8 by #5474, which
 * needs Node 22): when a response body is under backpressure (our parser or the Parquet writer
 * is slower than the network) undici's HTTP/1 parser is paused, and if the server then closes
 * the connection (`Connection: close`, or an HTTP/1.0 server) undici's 'end' handler (or its
 * 'error' handler, on a reset) finishes the parser, which asserts that it is not paused. The
 * AssertionError is thrown from a socket event handler, so no try/catch of ours can see it: one
 * such server took the whole crawl down.
 *
 * At 'end' every byte of the response has been read from the socket. Resuming the parser
 * completes a Content-Length or chunked body (buffering at most what is already in memory). If
 * it is still paused after that (by reading of llhttp, an EOF-delimited body can pause again on
 * an empty last callback; the tests have not produced it), it is unpaused without parsing more,
 * and undici's own handler finishes it or reports the body cut short. The parser is reached through undici's internal `Symbol(parser)` on the
 * socket (undici is pinned to one version; test/fetch-connection-close.test.ts fails if this
 * stops working).
 */
function onEndUnpause(this: net.Socket): void {
  const parser = undiciParser(this);
  if (parser?.paused !== true) return;
  try {
    // Each resume parses at least one more callback's worth; the bound only guards against a loop.
    for (let i = 0; i < 64 && parser.paused === true && typeof parser.resume === 'function' && !this.destroyed && this.readableLength > 0; i++) parser.resume();
    if (parser.paused === true && typeof parser.resume === 'function' && !this.destroyed) parser.resume();
  } catch {
    // fall through: unpaused below, and undici's handler reports the broken body
  }
  forceUnpause(parser);
}

/** On a reset, undici finishes a `Connection: close` response too (it treats ECONNRESET as the end). */
function onResetUnpause(this: net.Socket, err: NodeJS.ErrnoException): void {
  if (err?.code !== 'ECONNRESET') return;
  const parser = undiciParser(this);
  if (parser?.paused === true) forceUnpause(parser);
}

function forceUnpause(parser: UndiciParser): void {
  if (parser.paused !== true || !parser.llhttp || parser.ptr === null || parser.ptr === undefined) return;
  try {
    parser.llhttp.llhttp_resume(parser.ptr);
  } catch {
    // the parser's own finish() will report its state
  }
  parser.paused = false;
}
