/**
 * The simulated web, as a library: tests, benchmarks and the demo start one in-process and point
 * a crawl at it with `connectArgs` (curl's --connect-to / --cacert spellings, contract §1).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fixtureBehaviour, fixtureRoute, loadFixtures, type FixtureHost } from './fixtures.js';
import { HOSTILE_KINDS, hostileName, parseSyntheticHost } from './names.js';
import { startRealDns, withDnsExpectation, type SimwebDns } from './real-dns.js';
import type { HostBehaviour, HostSpec, Route } from './route.js';
import { SimwebServer, type RequestInfo, type Resolver, type SimwebStats } from './server.js';
import { SyntheticWeb } from './synthetic-web.js';
import { createTestCa, type TestCa } from './tls-ca.js';
import { seedOf } from './prng.js';
import { realWebExpectation, realWebResolver } from './realweb.js';

export interface SimwebOptions {
  /** Synthetic root domains in domains(). @default 1000 */
  hosts?: number;
  /** Seed of the synthetic web: same seed, same bytes. @default 'adsnap' */
  seed?: string | number;
  /** Directory of fixture hosts (`DIR/<host>/…`, see fixtures.ts). @default null */
  fixturesDir?: string | null;
  /** Per-host delay before each answer, drawn per host between these bounds. @default null (none) */
  latency?: { minMs: number; maxMs: number } | null;
  /** Sprinkle hostile hosts into domains() (the fixed `hostile-<kind>.test` set is always served). @default true */
  hostile?: boolean;
  /** Layer the real web's HTTP mix over the listed sites: bot walls, 429s, stalls, slow answers, transport and encoding variety (realweb.ts). @default false */
  realweb?: boolean;
  /**
   * Every host answers over http:// as it does over https://: no redirect to https://, no
   * https-only hosts, and a redirect's https:// Location becomes http://. For benchmarks that point
   * HTTPS at a closed port to leave TLS's cost out: every file then comes over HTTP after the
   * ads.txt 1.1 §3.1 fallback, with the same bytes as over HTTPS. @default false
   */
  plainHttp?: boolean;
  /** Synthetic apps in apps(). @default max(10, hosts / 10) */
  apps?: number;
  /** Interval between lines of the trickling host, ms. @default 200 */
  trickleMs?: number;
  /** Publishers scanned to build each ad system's sellers.json. @default 2000 */
  sellersPublishers?: number;
  /** Night of the simulated web: at epoch E > 0 a fixed 5% of sites serve a revised ads.txt. @default 0 */
  epoch?: number;
  /** Leaf certificates kept (one per registrable domain). @default 10000 */
  maxCerts?: number;
  /** Port to listen on (127.0.0.1). @default 0 (any free port) */
  port?: number;
  /** Called after each request is answered (tests use it to see what a crawl asked for). */
  onRequest?: (info: RequestInfo) => void;
  /**
   * Also run a DNS server on 127.0.0.1:port (0: any free port) and serve ports 80/443 of the
   * addresses it hands out (real-dns.ts; docs/guide/real-web.md). Needs root or CAP_NET_BIND_SERVICE.
   * @default null (--connect-to only)
   */
  dns?: { port?: number } | null;
}

export interface Simweb {
  /** The one port serving both HTTP and HTTPS. */
  port: number;
  caCertPem: string;
  caCertPath: string;
  /** ['--connect-to', ':80:127.0.0.1:P', '--connect-to', ':443:127.0.0.1:P', '--cacert', caCertPath] */
  connectArgs: string[];
  /** The CA, to issue more certificates (e.g. for other test servers). */
  ca: TestCa;
  /** The DNS side when started with `dns` (its `crawlArgs` and `--cacert caCertPath` point a crawl here), else null. */
  dns: SimwebDns | null;
  /** The synthetic root domains, in rank order. */
  domains(): Iterable<string>;
  /** Store URLs of the synthetic apps. */
  apps(): Iterable<string>;
  /** The ad systems' hosts, each serving a sellers.json. */
  adSystems(): Iterable<string>;
  /** The fixed hostile hosts, one per kind (`hostile-<kind>.test`). */
  hostileHosts(): string[];
  /** Fixture host names loaded from fixturesDir. */
  fixtureHosts(): string[];
  /** What a host serves, and what a correct crawl records for it. */
  describe(host: string): HostSpec;
  stats(): SimwebStats;
  close(): Promise<void>;
}

function validate(o: SimwebOptions) {
  const int = (name: string, v: number | undefined, def: number, min: number) => {
    const n = v ?? def;
    if (!Number.isInteger(n) || n < min) throw new TypeError(`simweb: ${name} must be an integer ≥ ${min}, got ${String(v)}`);
    return n;
  };
  const hosts = int('hosts', o.hosts, 1000, 0);
  const latency = o.latency ?? null;
  if (latency && !(latency.minMs >= 0 && latency.maxMs >= latency.minMs)) throw new TypeError('simweb: latency needs 0 ≤ minMs ≤ maxMs');
  return {
    hosts, latency, seed: seedOf(o.seed), hostile: o.hostile ?? true,
    apps: int('apps', o.apps, Math.max(10, Math.floor(hosts / 10)), 0),
    trickleMs: int('trickleMs', o.trickleMs, 200, 1),
    sellersPublishers: int('sellersPublishers', o.sellersPublishers, 2000, 0),
    epoch: int('epoch', o.epoch, 0, 0),
    maxCerts: int('maxCerts', o.maxCerts, 10_000, 1),
    port: int('port', o.port, 0, 0),
  };
}

/** See SimwebOptions.plainHttp. */
function plainHttpResolver(inner: Resolver): Resolver {
  return {
    behaviour: (host) => ({ ...inner.behaviour(host), transport: 'both' }),
    route(host, pathAndQuery) {
      const r = inner.route(host, pathAndQuery);
      return r.type === 'redirect' && r.location.startsWith('https://') ? { ...r, location: `http://${r.location.slice(8)}` } : r;
    },
    ...(inner.certGroup ? { certGroup: inner.certGroup.bind(inner) } : {}),
  };
}

export async function startSimweb(options: SimwebOptions = {}): Promise<Simweb> {
  const o = validate(options);
  const web = new SyntheticWeb({ seed: o.seed, hosts: o.hosts, apps: o.apps, hostile: o.hostile, latency: o.latency, sellersPublishers: o.sellersPublishers, epoch: o.epoch });
  const fixtures: Map<string, FixtureHost> = options.fixturesDir ? await loadFixtures(options.fixturesDir) : new Map();
  const plain: Resolver = {
    behaviour(host: string): HostBehaviour {
      const f = fixtures.get(host);
      return f ? fixtureBehaviour(f, web.behaviour(host).latencyMs) : web.behaviour(host);
    },
    route(host: string, pathAndQuery: string): Route {
      const f = fixtures.get(host);
      return (f && fixtureRoute(f, pathAndQuery)) ?? web.route(host, pathAndQuery);
    },
    certGroup: (host: string) => (fixtures.has(host) ? null : web.certGroup(host)),
  };
  const mixed = options.realweb ? realWebResolver(o.seed, plain) : plain;
  const resolver = options.plainHttp ? plainHttpResolver(mixed) : mixed;
  const ca = await createTestCa();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'adsnap-simweb-'));
  const caCertPath = path.join(dir, 'ca.pem');
  await writeFile(caCertPath, ca.certPem);
  const server = new SimwebServer({ ca, resolver, timing: { trickleMs: o.trickleMs }, maxCerts: o.maxCerts, onRequest: options.onRequest });
  let port: number;
  try {
    port = await server.listen(o.port);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  let dns: SimwebDns | null = null;
  if (options.dns) {
    const seed = o.seed;
    try {
      dns = await startRealDns(server, {
        port: options.dns.port ?? 0,
        seed,
        hosts: o.hosts,
        // Listed synthetic roots fail and spread as calibrated; every other name resolves.
        listedRoot: (host) => {
          const p = fixtures.has(host) ? null : parseSyntheticHost(seed, host);
          return p && p.cls === 'root' && p.index >= 1 && p.index <= o.hosts ? p.root : null;
        },
      });
    } catch (err) {
      await server.close();
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }
  return {
    port, caCertPem: ca.certPem, caCertPath, ca, dns,
    connectArgs: ['--connect-to', `:80:127.0.0.1:${port}`, '--connect-to', `:443:127.0.0.1:${port}`, '--cacert', caCertPath],
    domains: () => web.domains(),
    apps: () => web.appUrls(),
    adSystems: () => web.adSystemHosts(),
    hostileHosts: () => HOSTILE_KINDS.map((k) => hostileName(k)),
    fixtureHosts: () => [...fixtures.keys()],
    describe(host: string): HostSpec {
      const f = fixtures.get(host);
      if (!f) {
        const spec = options.realweb ? realWebExpectation(o.seed, web.describe(host)) : web.describe(host);
        return dns ? withDnsExpectation(dns.layout, spec) : spec;
      }
      const behaviour = resolver.behaviour(host);
      return { ...web.describe(host), host, role: 'fixture', behaviour, hostile: null, expect: f.expect, ...(f.about ? { about: f.about } : {}) };
    },
    stats: () => structuredClone(server.stats),
    async close() {
      await dns?.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export { createTestCa, type TestCa, type PemPair, type LeafOptions } from './tls-ca.js';
export type { HostSpec, HostBehaviour, ExpectedFile, Route } from './route.js';
export type { RequestInfo, SimwebStats } from './server.js';
export { HOSTILE_KINDS, type HostileKind } from './names.js';
export { SimwebBindError, type SimwebDns } from './real-dns.js';
export type { NamePlan, DnsFate, Placement } from './net-layout.js';
export { hostileExpectation } from './synthetic-web.js';
