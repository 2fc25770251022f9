import { describe, expect, it } from 'vitest';
import { isBlockedAddress } from '../src/fetch/address-guard.js';
import { resolveFetchConfig } from '../src/fetch/config.js';
import { formatConnectTo, matchConnectTo, parseConnectTo } from '../src/fetch/connect-to.js';
import { DnsCache } from '../src/fetch/dns-cache.js';
import { classifyError } from '../src/fetch/errors.js';
import { HostClocks, KeyedLimiter } from '../src/fetch/politeness.js';
import { decideRedirect, redirectPolicies, startRedirects } from '../src/fetch/redirect-policy.js';
import { backoffMs, isTransientStatus, parseRetryAfter } from '../src/fetch/retry.js';

describe('--connect-to HOST1:PORT1:HOST2:PORT2 (curl spelling)', () => {
  it('parses the forms curl accepts', () => {
    expect(parseConnectTo(':443:127.0.0.1:8443')).toEqual({ fromHost: null, fromPort: 443, toHost: '127.0.0.1', toPort: 8443 });
    expect(parseConnectTo('Example.COM::10.0.0.2:')).toEqual({ fromHost: 'example.com', fromPort: null, toHost: '10.0.0.2', toPort: null });
    expect(parseConnectTo('[::1]:80:[::1]:8080')).toEqual({ fromHost: '::1', fromPort: 80, toHost: '::1', toPort: 8080 });
    expect(parseConnectTo('a.example:443::9443')).toEqual({ fromHost: 'a.example', fromPort: 443, toHost: null, toPort: 9443 });
    expect(formatConnectTo(parseConnectTo('[::1]:80:[::1]:8080'))).toBe('[::1]:80:[::1]:8080');
  });

  it('rejects bad input with a message naming the field', () => {
    expect(() => parseConnectTo('127.0.0.1:8443')).toThrow(/4 fields/);
    expect(() => parseConnectTo(':99999:127.0.0.1:80')).toThrow(/PORT1 "99999"/);
    expect(() => parseConnectTo(':80:bad host:80')).toThrow(/HOST2 "bad host"/);
    expect(() => parseConnectTo(':80:[nope]:80')).toThrow(/HOST2 "\[nope\]"/);
    expect(() => parseConnectTo(':80::')).toThrow(/change nothing/);
    expect(() => parseConnectTo(':80:127.0.0.1:x')).toThrow(TypeError);
  });

  it('uses the first matching rule; empty HOST1/PORT1 match anything', () => {
    const rules = ['a.example:443:10.0.0.1:1', ':443:10.0.0.2:2', '::10.0.0.3:3'].map(parseConnectTo);
    expect(matchConnectTo(rules, 'a.example', 443)?.toPort).toBe(1);
    expect(matchConnectTo(rules, 'b.example', 443)?.toPort).toBe(2);
    expect(matchConnectTo(rules, 'b.example', 80)?.toPort).toBe(3);
    expect(matchConnectTo(rules.slice(0, 2), 'b.example', 80)).toBeNull();
  });
});

describe('address guard', () => {
  it.each(['127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255', '168.63.129.16', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1', 'ff02::1', 'not-an-ip'])('blocks %s', (a) => {
    expect(isBlockedAddress(a)).toBe(true);
  });
  it.each(['93.184.216.34', '1.1.1.1', '172.32.0.1', '8.8.8.8', '2606:4700::6810:85e5', '::ffff:1.1.1.1'])('allows %s', (a) => {
    expect(isBlockedAddress(a)).toBe(false);
  });

  // Every way an IPv6 address can carry an IPv4 one: judged by the bytes, whatever the spelling.
  const wrappers: [string, (v4: string) => string][] = [
    ['IPv4-compatible ::a.b.c.d', (v) => `::${v}`],
    ['IPv4-mapped, expanded', (v) => `0:0:0:0:0:ffff:${hex(v)}`],
    ['IPv4-mapped, hex', (v) => `::ffff:${hex(v)}`],
    ['IPv4-translated ::ffff:0:a.b.c.d', (v) => `::ffff:0:${v}`],
    ['NAT64 64:ff9b::/96', (v) => `64:ff9b::${v}`],
    ['NAT64 local-use 64:ff9b:1::/48 (/96 prefix)', (v) => `64:ff9b:1::${hex(v)}`],
    ['NAT64 local-use /48 (RFC 6052 layout)', (v) => rfc6052at48(v)],
    ['6to4 2002::/16', (v) => `2002:${hex(v)}::1`],
    ['Teredo server', (v) => `2001:0:${hex(v)}:0:0:${hex('8.8.4.4', true)}`],
    ['Teredo client (inverted)', (v) => `2001:0:${hex('8.8.4.4')}:0:0:${hex(v, true)}`],
  ];
  it.each(wrappers)('%s: refused around a refused IPv4, allowed around a public one', (_name, wrap) => {
    for (const bad of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '192.168.1.1', '0.0.0.5']) expect(isBlockedAddress(wrap(bad)), wrap(bad)).toBe(true);
    expect(isBlockedAddress(wrap('8.8.8.8')), wrap('8.8.8.8')).toBe(false);
  });

  it.each(['0x7f.1', '0x7f000001', '2130706433', '127.1', '0177.0.0.1', '017700000001', 'fe80::1%eth0', '::ffff:127.0.0.1%1', ' 127.0.0.1', '1.2.3.4.5', '', '[::1]'])('refuses %s (another spelling of a refused address, or not an address)', (a) => {
    expect(isBlockedAddress(a)).toBe(true);
  });
});

/** The IPv4 address as two 16-bit hex groups (inverted: Teredo's client field). */
function hex(v4: string, invert = false): string {
  const b = v4.split('.').map((x) => Number(x) ^ (invert ? 0xff : 0));
  return `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
}

/** RFC 6052 §2.2 for a /48 prefix: the address in bits 48–63 and 72–87 (bits 64–71 are zero). */
function rfc6052at48(v4: string): string {
  const b = v4.split('.').map(Number);
  return `64:ff9b:1:${((b[0]! << 8) | b[1]!).toString(16)}:${b[2]!.toString(16)}:${(b[3]! << 8).toString(16)}::`;
}

describe('redirect policy (pure)', () => {
  const ads = () => startRedirects(redirectPolicies['ads.txt'], new URL('https://news.example.co.uk/ads.txt'));
  const u = (s: string) => new URL(s);

  it('ads.txt 1.1 §3.1: the root is PSL+1, so a sibling subdomain stays in scope', () => {
    const s = ads();
    expect(decideRedirect(s, u('https://news.example.co.uk/ads.txt'), 'https://sport.example.co.uk/ads.txt')).toEqual({ follow: u('https://sport.example.co.uk/ads.txt') });
    expect(s.leftRoot).toBe(false);
    expect(decideRedirect(s, u('https://sport.example.co.uk/ads.txt'), '//other.co.uk/ads.txt')).toEqual({ follow: u('https://other.co.uk/ads.txt') });
    expect(s.leftRoot).toBe(true);
    expect(decideRedirect(s, u('https://other.co.uk/ads.txt'), '/again')).toEqual({ error: 'redirect_scope' });
  });

  it('ads.txt: a private PSL suffix makes user.github.io its own root', () => {
    const s = startRedirects(redirectPolicies['ads.txt'], u('https://alice.github.io/ads.txt'));
    decideRedirect(s, u('https://alice.github.io/ads.txt'), 'https://bob.github.io/ads.txt');
    expect(s.leftRoot).toBe(true);
  });

  it('resolves relative Locations, drops fragments, rejects non-http schemes', () => {
    const s = ads();
    expect(decideRedirect(s, u('https://news.example.co.uk/ads.txt'), 'x/ads.txt#frag')).toEqual({ follow: u('https://news.example.co.uk/x/ads.txt') });
    expect(decideRedirect(s, u('https://news.example.co.uk/x/ads.txt'), 'ftp://news.example.co.uk/ads.txt')).toEqual({ error: 'redirect_invalid' });
    expect(decideRedirect(s, u('https://news.example.co.uk/x/ads.txt'), 'http://[bad')).toEqual({ error: 'redirect_invalid' });
  });

  it('robots.txt: five hops across hosts, the sixth is redirect_limit', () => {
    const s = startRedirects(redirectPolicies['robots.txt'], u('https://h0.example/robots.txt'));
    for (let i = 1; i <= 5; i++) expect('follow' in decideRedirect(s, u(`https://h${i - 1}.example/robots.txt`), `https://h${i}.example/robots.txt`)).toBe(true);
    expect(decideRedirect(s, u('https://h5.example/robots.txt'), 'https://h6.example/robots.txt')).toEqual({ error: 'redirect_limit' });
  });
});

describe('retry rules', () => {
  it('only 408, 429, 502, 503, 504 are transient statuses', () => {
    expect([200, 301, 304, 400, 401, 403, 404, 408, 410, 429, 500, 501, 502, 503, 504].filter(isTransientStatus)).toEqual([408, 429, 502, 503, 504]);
  });
  it('RFC 9110 §10.2.3 Retry-After: delay-seconds or HTTP-date', () => {
    const now = Date.UTC(2026, 10, 22, 12);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
  it('backs off exponentially with jitter, capped', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(a, 1000, 5000, () => 1))).toEqual([1000, 2000, 4000, 5000]);
    expect(backoffMs(1, 1000, 5000, () => 0)).toBe(500);
  });
});

describe('politeness primitives', () => {
  it('KeyedLimiter: FIFO hand-over, and no state left for idle keys', async () => {
    const l = new KeyedLimiter();
    const order: number[] = [];
    const r1 = await l.acquire('h', 1);
    const waits = [2, 3].map((n) => l.acquire('h', 1).then((rel) => (order.push(n), rel)));
    expect(l.active('h')).toBe(1);
    r1();
    (await waits[0]!)();
    (await waits[1]!)();
    expect(order).toEqual([2, 3]);
    expect(l.keys).toBe(0);
  });
  it('KeyedLimiter: an aborted waiter leaves the queue', async () => {
    const l = new KeyedLimiter();
    const r1 = await l.acquire('h', 1);
    const ctl = new AbortController();
    const p = l.acquire('h', 1, ctl.signal);
    ctl.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    r1();
    expect(l.keys).toBe(0);
  });
  it('HostClocks: never shortens a hold; expired holds vanish', () => {
    let t = 0;
    const c = new HostClocks(() => t);
    c.defer('h', 5000);
    c.defer('h', 1000);
    expect(c.waitMs('h')).toBe(5000);
    t = 5000;
    expect(c.waitMs('h')).toBe(0);
    expect(c.size).toBe(0);
  });
});

describe('DNS cache', () => {
  it('shares concurrent lookups, caches answers and failures, and stays bounded', async () => {
    let t = 0;
    const calls: string[] = [];
    const cache = new DnsCache(
      async (h) => {
        calls.push(h);
        if (h === 'nx.example') throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
        return ['203.0.113.1'];
      },
      2,
      1000,
      100,
      () => t,
    );
    await Promise.all([cache.resolve('a.example'), cache.resolve('a.example')]);
    await cache.resolve('a.example');
    expect(calls).toEqual(['a.example']);
    await expect(cache.resolve('nx.example')).rejects.toThrow('nx');
    await expect(cache.resolve('nx.example')).rejects.toThrow('nx');
    expect(calls).toEqual(['a.example', 'nx.example']);
    await cache.resolve('b.example');
    expect(cache.size).toBe(2);
    t = 2000;
    await cache.resolve('a.example');
    expect(calls.filter((c) => c === 'a.example')).toHaveLength(2);
    expect(await cache.resolve('198.51.100.7')).toEqual(['198.51.100.7']);
  });
});

describe('config, errors, outcome mapping', () => {
  it('resolveFetchConfig: defaults from spec-decisions, per-kind overrides, precise TypeErrors', () => {
    const c = resolveFetchConfig({ maxBytes: { 'robots.txt': 600_000 }, totalTimeoutMs: 5000, connectTo: [':80:127.0.0.1:8080'] });
    expect(c.perHost).toBe(1);
    expect(c.maxBytes).toMatchObject({ 'ads.txt': 16 * 2 ** 20, 'robots.txt': 600_000, 'sellers.json': 256 * 2 ** 20 });
    expect(c.totalTimeoutMs['sellers.json']).toBe(5000);
    expect(c.connectTo[0]!.toPort).toBe(8080);
    expect(c.userAgent).toMatch(/^adsnap\//);
    expect(() => resolveFetchConfig({ perHost: 0 })).toThrow(/perHost must be an integer ≥ 1/);
    expect(() => resolveFetchConfig({ maxBytes: { 'ads.text': 5 } as never })).toThrow(/unknown kind "ads.text"/);
    expect(() => resolveFetchConfig({ userAgent: 'a\r\nb' })).toThrow(/userAgent/);
    expect(() => resolveFetchConfig({ caCerts: ['not pem'] })).toThrow(/caCerts/);
    expect(() => resolveFetchConfig({ connectTo: ['nope'] })).toThrow(/--connect-to "nope"/);
  });

  it('classifies Node and undici errors into stable codes', () => {
    const e = (code: string) => Object.assign(new Error(code), { code });
    expect(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_SSL_WRONG_VERSION_NUMBER', 'Z_DATA_ERROR', 'HPE_INVALID_HEADER_TOKEN', 'ENOTFOUND', 'WHATEVER'].map((c) => classifyError(e(c)))).toEqual([
      'connect', 'reset', 'timeout', 'tls', 'tls', 'tls', 'decode', 'protocol', 'dns_nxdomain', 'other',
    ]);
  });

});
