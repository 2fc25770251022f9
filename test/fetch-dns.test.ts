import net from 'node:net';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressAllowList, allowedAddresses, parseAllowCidr } from '../src/fetch/address-guard.js';
import { dnsResolver } from '../src/fetch/dns-cache.js';
import { classifyDnsError, isDnsErrorCode } from '../src/fetch/dns-errors.js';
import { formatDnsServer, parseDnsServer } from '../src/fetch/dns-servers.js';
import { classifyError } from '../src/fetch/errors.js';
import { Fetcher, resolveFetchConfig } from '../src/fetch/index.js';
import { networkManifest } from '../src/fetch/network-manifest.js';
import { SimDnsServer } from '../src/simweb/dns-server.js';
import { NetLayout, type DnsFate } from '../src/simweb/net-layout.js';
import { syntheticName } from '../src/simweb/names.js';
import { seedOf } from '../src/simweb/prng.js';

/**
 * DNS as a real component: failure classes, resolver options and the allow list, and
 * the simulated web's DNS server answered through c-ares (no ports 80/443 needed: every test
 * here runs without root).
 */
const e = (code: string) => Object.assign(new Error(code), { code });

describe('DNS failure classes (dns-errors.ts)', () => {
  it('maps each resolver status to its class, and keeps plain dns only where nothing finer is known', () => {
    const codes = ['ENOTFOUND', 'EAI_NONAME', 'ESERVFAIL', 'EREFUSED', 'ETIMEOUT', 'ENODATA', 'EAI_AGAIN', 'ECONNREFUSED', 'EBADRESP', 'EFORMERR'];
    expect(codes.map((c) => classifyDnsError(e(c)))).toEqual([
      'dns_nxdomain', 'dns_nxdomain', 'dns_servfail', 'dns_refused', 'dns_timeout', 'dns_no_address', 'dns', 'dns', 'dns', 'dns',
    ]);
    expect(classifyDnsError(null)).toBe('dns');
    expect(classifyDnsError(new Error('no code'))).toBe('dns');
  });

  it('classifyError gives the same classes (c-ares ETIMEOUT is a DNS time-out, a socket ETIMEDOUT is not)', () => {
    expect(['ENOTFOUND', 'ESERVFAIL', 'EREFUSED', 'ETIMEOUT', 'ENODATA', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNREFUSED'].map((c) => classifyError(e(c)))).toEqual([
      'dns_nxdomain', 'dns_servfail', 'dns_refused', 'dns_timeout', 'dns_no_address', 'dns', 'timeout', 'connect',
    ]);
    expect(['dns', 'dns_servfail', 'timeout', 'connect', null].map(isDnsErrorCode)).toEqual([true, true, false, false, false]);
  });
});

describe('--dns-server and --allow-addresses at the edge', () => {
  it('parses resolver addresses with optional ports, IPv6 in brackets', () => {
    expect(['1.1.1.1', '127.0.0.1:5353', '[::1]:53', '::1', '[2001:db8::1]'].map((s) => formatDnsServer(parseDnsServer(s)))).toEqual([
      '1.1.1.1:53', '127.0.0.1:5353', '[::1]:53', '[::1]:53', '[2001:db8::1]:53',
    ]);
    for (const bad of ['dns.google', '1.1.1.1:0', '1.1.1.1:70000', '[::1', '[1.2.3.4]:53', '::1:53x', '']) expect(() => parseDnsServer(bad), bad).toThrow(/--dns-server/);
    expect(() => resolveFetchConfig({ dnsServers: ['resolver.example'] })).toThrow(/is not an IP address/);
  });

  it('lets only the allowed networks through the guard, IPv4-mapped addresses judged as IPv4', () => {
    expect(['127.16.3.4/16', '::1', '10.0.0.1'].map(parseAllowCidr)).toEqual(['127.16.0.0/16', '::1/128', '10.0.0.1/32']);
    expect(() => parseAllowCidr('127.0.0.0/33')).toThrow(/--allow-addresses "127.0.0.0\/33"/);
    expect(() => parseAllowCidr('localhost')).toThrow(/--allow-addresses/);
    const allow = new AddressAllowList(['127.16.0.0/16', '::1/128']);
    const answers = ['127.16.9.9', '127.17.0.1', '::1', '::ffff:127.16.0.254', '10.1.1.1', '93.184.216.34'];
    expect(allowedAddresses(answers)).toEqual(['93.184.216.34']);
    expect(allowedAddresses(answers, allow)).toEqual(['127.16.9.9', '::1', '::ffff:127.16.0.254', '93.184.216.34']);
  });

  it('records resolvers and exemptions for the run manifest; the guard stays closed by default', () => {
    const c = resolveFetchConfig({ dnsServers: ['127.0.0.1:5353'], allowAddresses: ['127.16.0.0/16'], dnsTimeoutMs: 800 });
    expect(networkManifest(c)).toEqual({
      dns_servers: ['127.0.0.1:5353'], dns_timeout_ms: 800, dns_tries: 2, dns_cache_size: 10_000,
      allow_addresses: ['127.16.0.0/16'], block_private_addresses: true, connect_to: [],
    });
    expect(networkManifest(resolveFetchConfig({})).dns_servers).toBe('system');
    expect(networkManifest(resolveFetchConfig({})).allow_addresses).toEqual([]);
  });
});

describe('the simulated web DNS server through c-ares', () => {
  const seed = seedOf('dns-unit');
  const hosts = 3000;
  const names = Array.from({ length: hosts }, (_, i) => syntheticName(seed, 'root', i + 1));
  const roots = new Set(names);
  const listedRoot = (h: string) => (roots.has(h) ? h : roots.has(h.replace(/^www\./, '')) ? h.slice(4) : null);
  const layout = new NetLayout({ seed, block: 250, hosts, ipv6Address: '::1', listedRoot });
  const server = new SimDnsServer(layout);
  let resolve: (h: string) => Promise<string[]>;
  let tcpPort = 0;
  const first = (pred: (h: string) => boolean) => {
    const h = names.find(pred);
    if (!h) throw new Error('no such name in the sample');
    return h;
  };
  const ofFate = (f: DnsFate) => first((h) => layout.plan(h).fate === f && layout.plan(h).delayMs === 0);

  beforeAll(async () => {
    const port = await server.listen(0);
    tcpPort = port;
    resolve = dnsResolver({ servers: [`127.0.0.1:${port}`], timeoutMs: 300, tries: 1 });
  });
  afterAll(() => server.close());

  it('each failing fate reaches the fetch layer as its class', async () => {
    const classes: Record<string, string> = {};
    for (const fate of ['nxdomain', 'servfail', 'refused', 'timeout', 'no_address'] as const) {
      classes[fate] = await resolve(ofFate(fate)).then(() => 'resolved', classifyDnsError);
    }
    expect(classes).toEqual({ nxdomain: 'dns_nxdomain', servfail: 'dns_servfail', refused: 'dns_refused', timeout: 'dns_timeout', no_address: 'dns_no_address' });
  });

  it('answers over TCP as over UDP (a length-prefixed message, RFC 1035 §4.2.2), for two queries on one connection', async () => {
    const ok = first((h) => layout.plan(h).fate === 'ok' && layout.plan(h).placement === 'shared' && layout.plan(h).chain.length === 0 && layout.plan(h).delayMs === 0);
    const missing = ofFate('nxdomain');
    const socket = net.connect({ host: '127.0.0.1', port: tcpPort });
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const answers: dnsPacket.Packet[] = [];
    let buf = Buffer.alloc(0);
    const done = new Promise<void>((resolve) => {
      socket.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const len = buf.readUInt16BE(0);
          answers.push(dnsPacket.decode(buf.subarray(2, 2 + len)));
          buf = buf.subarray(2 + len);
          if (answers.length === 2) resolve();
        }
      });
    });
    for (const [id, name] of [[1, ok], [2, missing]] as const) {
      socket.write(dnsPacket.streamEncode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name }] }));
    }
    await done;
    socket.destroy();
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect((byId.get(1)!.answers ?? []).map((a) => (a as { data: unknown }).data)).toEqual([layout.plan(ok).v4]);
    expect((byId.get(2)!.flags ?? 0) & 0xf).toBe(3); // NXDOMAIN
    expect(server.stats.tcp).toBeGreaterThanOrEqual(2);
  });

  it('follows CNAME chains to the address, and answers AAAA only for IPv6-only sites', async () => {
    const chained = first((h) => layout.plan(h).fate === 'ok' && layout.plan(h).chain.length >= 2 && layout.plan(h).delayMs === 0);
    expect(await resolve(chained)).toEqual([layout.plan(chained).v4]);
    // A chain link asked for directly resolves too (the server is stateless).
    expect(await resolve(layout.plan(chained).chain[0]!)).toEqual([layout.plan(chained).v4]);
    const v6 = names.find((h) => layout.plan(h).placement === 'ipv6_only' && layout.plan(h).delayMs === 0);
    if (v6) expect(await resolve(v6)).toEqual(['::1']);
    const www = `www.${first((h) => layout.plan(h).fate === 'ok' && layout.plan(h).placement === 'cdn')}`;
    expect((await resolve(www))[0]).toMatch(/^127\.250\.0\.([1-9]|[1-3]\d|40)$/);
  });

  it('spreads the listed sites as calibrated: a third on a few dozen CDN addresses, a few percent failing', () => {
    const plans = names.map((h) => layout.plan(h));
    const share = (p: (x: (typeof plans)[number]) => boolean) => plans.filter(p).length / plans.length;
    expect(share((p) => p.fate !== 'ok')).toBeGreaterThan(0.02);
    expect(share((p) => p.fate !== 'ok')).toBeLessThan(0.07);
    expect(share((p) => p.placement === 'cdn')).toBeGreaterThan(0.28);
    expect(new Set(plans.filter((p) => p.placement === 'cdn').map((p) => p.v4)).size).toBeLessThanOrEqual(40);
    expect(share((p) => p.placement === 'syn_dead')).toBeGreaterThan(0.005);
  });

  it('a crawl resolver with the guard refuses the loopback answers unless the network is allowed', async () => {
    const ok = first((h) => layout.plan(h).fate === 'ok' && layout.plan(h).placement === 'shared' && layout.plan(h).delayMs === 0);
    const port = (server as unknown as { udp: { address(): { port: number } } }).udp.address().port;
    const fetcher = (allow: string[]) => new Fetcher(resolveFetchConfig({ dnsServers: [`127.0.0.1:${port}`], dnsTimeoutMs: 300, dnsTries: 1, allowAddresses: allow, connectTimeoutMs: 500, retries: 0 }));
    const read = async (f: Fetcher, url: string) => {
      try {
        return (await f.fetch({ url, kind: 'robots.txt', subject: 's' }, async () => null)).rows.map((r) => r.error);
      } finally {
        await f.close();
      }
    };
    expect(await read(fetcher([]), `http://${ok}/robots.txt`)).toEqual(['blocked_address']);
    // Allowed, the address is tried (nothing listens on 127.250.x.y:80 here: refused).
    expect(await read(fetcher(['127.250.0.0/16']), `http://${ok}/robots.txt`)).toEqual(['connect']);
    expect(await read(fetcher([]), `http://${ofFate('servfail')}/robots.txt`)).toEqual(['dns_servfail']);
  });
});
