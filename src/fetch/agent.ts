import type { Socket } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, buildConnector, errors } from 'undici';
import type { FetchConfig } from './config.js';

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
 * The one undici Agent of a Fetcher. Requests are dispatched to the *address* (origin
 * `https://203.0.113.7:443`) with the URL's host in the Host header; undici derives the TLS SNI
 * and certificate check from the Host header, so the server sees an ordinary request while we
 * decide where to connect (address guard, per-IP cap, --connect-to). Pools are therefore per
 * address, not per host name: a crawl of a million hosts on a few thousand hosting IPs does not
 * pile up a million idle pools (bakeoff.md: 579 MB after 20k hosts with per-host pools).
 */
export function createAgent(config: FetchConfig): Agent {
  const tlsOptions =
    config.caCerts.length > 0
      ? // `ca` replaces Node's roots, so add ours to them (--cacert adds trust, never removes it).
        // One context, built once: `ca` per connection would re-parse ~140 root PEMs per handshake.
        { secureContext: createSecureContext({ ca: [...rootCertificates, ...config.caCerts] }) }
      : {};
  return new Agent({
    connect: exactTimeoutConnector(tlsOptions, config.connectTimeoutMs),
    keepAliveTimeout: config.keepAliveTimeoutMs,
    keepAliveMaxTimeout: config.keepAliveTimeoutMs,
    // Our own exact timers (AbortSignal-driven) enforce the headers and whole-request deadlines;
    // undici's coarse ones are only a backstop, set just behind ours.
    headersTimeout: config.headersTimeoutMs + 1000,
    bodyTimeout: Math.max(...Object.values(config.totalTimeoutMs)) + 1000,
    pipelining: 1,
  });
}
