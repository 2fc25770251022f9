/**
 * The real web's HTTP mix as a layer over the simulated web (`simweb --realweb`): a
 * calibrated share of the listed sites sit behind a bot wall, rate-limit on sight, accept and
 * never answer, or answer slowly, and some serve their /ads.txt in the ways real servers do that
 * the synthetic web does not (HTTP/1.0 close-delimited, br/deflate, Latin-1, UTF-16 with a BOM,
 * relative and protocol-relative Location). Shares and sources: realweb-calibration.ts. A site's
 * fate is a pure function of (seed, root), so a test asks `realWebFate` what to expect.
 */
import { brotliCompressSync, deflateSync } from 'node:zlib';
import { parseSyntheticHost } from './names.js';
import { Rng } from './prng.js';
import {
  RATE_LIMITED_SHARE, RETRY_AFTER_S, SLOW_MS, SLOW_SHARE, STALL_SHARE, VARIETY_WEIGHTS, WALL_SHARE, WALL_VENDOR_WEIGHTS,
} from './realweb-calibration.js';
import { body, HTML, redirect, type HostBehaviour, type HostSpec, type Route } from './route.js';
import type { Resolver } from './server.js';

export type WallKind = keyof typeof WALL_VENDOR_WEIGHTS;
export type Variety = keyof typeof VARIETY_WEIGHTS;

export type RealWebFate =
  | { kind: 'normal' }
  | { kind: 'wall'; vendor: WallKind }
  | { kind: 'rate_limited'; retryAfterS: number }
  | { kind: 'stall' }
  | { kind: 'slow'; latencyMs: number }
  | { kind: 'variety'; variety: Variety };

const NORMAL: RealWebFate = { kind: 'normal' };

/** The fate of a listed synthetic site and all its hosts; every other host (ad systems, partners, fixtures) is normal. */
export function realWebFate(seed: number, host: string): RealWebFate {
  const p = parseSyntheticHost(seed, host);
  if (!p || p.cls !== 'root') return NORMAL;
  const rng = Rng.for(seed, 'realweb', p.root);
  const x = rng.int(1_000_000) / 1_000_000;
  let edge = WALL_SHARE;
  if (x < edge) return { kind: 'wall', vendor: rng.weighted(WALL_VENDOR_WEIGHTS) };
  if (x < (edge += RATE_LIMITED_SHARE)) return { kind: 'rate_limited', retryAfterS: RETRY_AFTER_S.min + rng.int(RETRY_AFTER_S.max - RETRY_AFTER_S.min + 1) };
  if (x < (edge += STALL_SHARE)) return { kind: 'stall' };
  if (x < (edge += SLOW_SHARE)) return { kind: 'slow', latencyMs: SLOW_MS.min + rng.int(SLOW_MS.max - SLOW_MS.min + 1) };
  for (const [variety, share] of Object.entries(VARIETY_WEIGHTS) as Array<[Variety, number]>) {
    if (x < (edge += share)) return { kind: 'variety', variety };
  }
  return NORMAL;
}

/** The pages the vendors' walls answer with (markers as src/fetch/challenge.ts documents them). */
export function wallRoute(vendor: WallKind): Route {
  switch (vendor) {
    case 'cloudflare':
      return body(403, HTML, '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta name="robots" content="noindex,nofollow"><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8e1a"></script></head><body><noscript>Enable JavaScript and cookies to continue</noscript></body></html>\n', { 'cf-mitigated': 'challenge', server: 'cloudflare', 'cache-control': 'private, max-age=0, no-store' });
    case 'imperva':
      // Imperva answers 200 with an interstitial (the corpus's captures).
      return body(200, HTML, '<html>\n<head>\n<META NAME="robots" CONTENT="noindex,nofollow">\n<script src="/_Incapsula_Resource?SWJIYLWA=5074a744e2e3d891814e9a2dace20bd4,719d34d31c8e3a6e6fffd425f7e032f3">\n</script>\n<body>\n</body></html>\n');
    case 'datadome':
      return body(403, HTML, '<html><head><title>example</title></head><body><p id="cmsg">Please enable JS and disable any ad blocker</p><script src="https://ct.captcha-delivery.com/c.js"></script></body></html>\n', { 'x-datadome': 'protected' });
    case 'akamai':
      return body(403, HTML, '<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\nYou don\'t have permission to access this resource on this server.<P>\nReference&#32;&#35;18&#46;4c2e3b17&#46;1732500000&#46;1a2b3c\n<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;4c2e3b17 <a href="https://errors.edgesuite.net/18.4c2e3b17">details</a></BODY>\n</HTML>\n', { server: 'AkamaiGHost' });
    case 'aws_waf':
      return body(202, HTML, '<!DOCTYPE html><html><head><script src="https://example.token.awswaf.com/challenge.js"></script><script>AwsWafIntegration.checkForceRefresh();</script></head><body></body></html>\n', { 'x-amzn-waf-action': 'challenge' });
  }
}

/** The path the redirect varieties move /ads.txt to (same host). */
const MOVED = 'ads-current.txt';

function vary(variety: Variety, host: string, base: Route & { type: 'body' }): Route {
  const text = base.body;
  switch (variety) {
    case 'http10': {
      // HTTP/1.0 (RFC 1945 §7.2.2): no Content-Length, the body ends when the server closes.
      const head = `HTTP/1.0 200 OK\r\nContent-Type: ${base.contentType ?? 'text/plain'}\r\nServer: simweb-1.0\r\n\r\n`;
      return { type: 'raw', status: 200, bytes: Buffer.concat([Buffer.from(head, 'latin1'), text]) };
    }
    case 'br':
      return body(200, base.contentType, brotliCompressSync(text), { 'content-encoding': 'br', vary: 'Accept-Encoding' });
    case 'deflate':
      // RFC 9110 §8.4.1.2: "deflate" is the zlib format (RFC 1950), not raw deflate.
      return body(200, base.contentType, deflateSync(text), { 'content-encoding': 'deflate' });
    case 'latin1':
      // A comment with a Latin-1 byte (é = 0xE9); the records stay ASCII.
      return body(200, 'text/plain; charset=iso-8859-1', Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from(' au lait: ads.txt in ISO-8859-1\n'), text]));
    case 'utf16_bom':
      return body(200, 'text/plain; charset=utf-16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.toString('utf8'), 'utf16le')]));
    case 'relative_location':
      return redirect(MOVED, 302);
    case 'protocol_relative_location':
      return redirect(`//${host}/${MOVED}`, 302);
  }
}

/** Wraps a resolver with the real web's HTTP mix. */
export function realWebResolver(seed: number, base: Resolver): Resolver {
  return {
    certGroup: base.certGroup?.bind(base),
    behaviour(host: string): HostBehaviour {
      const b = base.behaviour(host);
      const fate = realWebFate(seed, host);
      return fate.kind === 'slow' ? { ...b, latencyMs: b.latencyMs + fate.latencyMs } : b;
    },
    route(host: string, pathAndQuery: string): Route {
      const fate = realWebFate(seed, host);
      switch (fate.kind) {
        case 'wall':
          return wallRoute(fate.vendor);
        case 'rate_limited':
          return body(429, 'text/plain', 'Too Many Requests\n', { 'retry-after': String(fate.retryAfterS) });
        case 'stall':
          return { type: 'hostile', kind: 'stall' };
        case 'variety': {
          const redirects = fate.variety === 'relative_location' || fate.variety === 'protocol_relative_location';
          if (redirects && pathAndQuery === `/${MOVED}`) return base.route(host, '/ads.txt');
          if (pathAndQuery !== '/ads.txt') break;
          const r = base.route(host, pathAndQuery);
          return r.type === 'body' && r.status === 200 ? vary(fate.variety, host, r) : r;
        }
        default:
          break;
      }
      return base.route(host, pathAndQuery);
    },
  };
}

/** What a correct crawl records for a host's ads.txt under the mix (walls, 429s and stalls change it; the rest does not). */
export function realWebExpectation(seed: number, spec: HostSpec): HostSpec {
  const fate = realWebFate(seed, spec.host);
  const status = fate.kind === 'wall' ? 'blocked' : fate.kind === 'rate_limited' ? 'rate_limited' : fate.kind === 'stall' ? 'unreachable' : null;
  const about = fate.kind === 'normal' ? {} : { about: `realweb: ${JSON.stringify(fate)}` };
  return status === null ? { ...spec, ...about } : { ...spec, ...about, expect: { ...spec.expect, 'ads.txt': { status } } };
}
