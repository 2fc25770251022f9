import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlOptions } from '../pipelines/crawl.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { startSimweb, type Simweb } from '../src/simweb/index.js';
import type { DnsFate, NamePlan } from '../src/simweb/net-layout.js';
import { syntheticName } from '../src/simweb/names.js';
import { seedOf } from '../src/simweb/prng.js';
import { realWebFate, type RealWebFate } from '../src/simweb/realweb.js';
import { finished, runCli, spawnCli } from './helpers/run-cli.js';
import { snapshotRows, VOLATILE_COLUMNS } from './helpers/snapshot-rows.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * Crawls through the simulated web's own DNS, with no --connect-to. The web listens on
 * ports 80/443 of 127.B.x.y addresses, which needs root (or CAP_NET_BIND_SERVICE): without it
 * every test here says so and is skipped.
 */
const tempDir = useTempDirs('realweb-dns');
const DATE = '2026-11-25';
const HOSTS = 8000;
/** Connect deadline of these crawls: SYN-dead hosts must end on it, as `timeout`. */
const CONNECT_MS = 3000; // roomy: the first TLS handshake of a host group issues its certificate (slow on a loaded machine)

let web: Simweb | null = null;
let skipWhy = '';
const picked: Record<string, string[]> = {};
let failing: string[] = [];
let healthy: string[] = [];
let outA = '';
let db: Awaited<ReturnType<typeof openSnapshotDb>> | null = null;

function plan(h: string): NamePlan {
  return web!.dns!.layout.plan(h);
}

/**
 * The first `n` listed roots matching `pred` (neither the root nor its www slow, so no DNS time-out
 * by chance) whose HTTP fate (simweb --realweb) matches `http`: by default an ordinary site.
 */
function pick(key: string, n: number, pred: (p: NamePlan, host: string) => boolean, http: (f: RealWebFate) => boolean = (f) => f.kind === 'normal'): string[] {
  const seed = seedOf('adsnap');
  const out: string[] = [];
  for (let i = 1; i <= HOSTS && out.length < n; i++) {
    const h = syntheticName(seed, 'root', i);
    if (pred(plan(h), h) && plan(h).delayMs === 0 && plan(`www.${h}`).delayMs === 0 && http(realWebFate(seed, h))) out.push(h);
  }
  picked[key] = out;
  return out;
}

async function crawlList(list: string[], extra: Partial<CrawlOptions> & { connect?: boolean }): Promise<string> {
  const out = tempDir();
  const file = path.join(tempDir(), 'list.txt'); // one name for every crawl: targets.source is the file's name
  await writeFile(file, list.join('\n') + '\n');
  const { connect, ...rest } = extra;
  const dnsSide = connect
    ? { connectTo: web!.connectArgs.filter((_, i) => web!.connectArgs[i - 1] === '--connect-to') }
    : { dnsServers: [`127.0.0.1:${web!.dns!.port}`], allowAddresses: web!.dns!.allowCidrs, dnsTimeoutMs: 2000, dnsTries: 1 };
  await crawl({
    domains: file,
    outDir: out,
    snapshotDate: DATE,
    checkpointSeconds: 0,
    previous: null,
    ...rest,
    fetch: { caCerts: [web!.caCertPem], connectTimeoutMs: CONNECT_MS, ...dnsSide },
  });
  return out;
}

beforeAll(async () => {
  try {
    web = await startSimweb({ hosts: HOSTS, hostile: false, dns: { port: 0 }, realweb: true });
  } catch (err) {
    if ((err as { code?: string }).code !== 'SIMWEB_BIND') throw err;
    skipWhy = (err as Error).message;
    return;
  }
  for (const fate of ['nxdomain', 'servfail', 'refused', 'timeout', 'no_address'] as DnsFate[]) pick(fate, 2, (p) => p.fate === fate);
  pick('syn_dead', 2, (p) => p.placement === 'syn_dead');
  pick('cdn_chain', 2, (p) => p.placement === 'cdn' && p.chain.length >= 2);
  pick('shared', 3, (p) => p.placement === 'shared' && p.chain.length === 0);
  pick('ipv6_only', 1, (p) => p.placement === 'ipv6_only');
  failing = ['nxdomain', 'servfail', 'refused', 'timeout', 'no_address', 'syn_dead'].flatMap((k) => picked[k]!);
  healthy = ['cdn_chain', 'shared', 'ipv6_only'].flatMap((k) => picked[k]!);
  // The real web's HTTP mix behind DNS: bot walls and a 429 on CDN-shared addresses.
  const reachable = (p: NamePlan) => p.fate === 'ok' && p.placement === 'cdn';
  pick('wall', 2, reachable, (f) => f.kind === 'wall');
  pick('rate_limited', 1, reachable, (f) => f.kind === 'rate_limited');
  outA = await crawlList([...failing, ...healthy, ...picked.wall!, ...picked.rate_limited!], { sellers: false });
  db = await openSnapshotDb(outA);
}, 180_000);

afterAll(async () => {
  db?.close();
  await web?.close();
});

const rows = (sql: string) => db!.rows(sql);
const ready = (ctx: { skip: (note?: string) => void }) => {
  if (!web) ctx.skip(`cannot bind ports 80/443 here: ${skipWhy}`);
};

describe('crawling through the simulated web DNS (no --connect-to)', () => {
  it('records each DNS failure class in the fetch rows', async (ctx) => {
    ready(ctx);
    const expected: Record<string, string> = { nxdomain: 'dns_nxdomain', servfail: 'dns_servfail', refused: 'dns_refused', timeout: 'dns_timeout', no_address: 'dns_no_address' };
    for (const [fate, code] of Object.entries(expected)) {
      for (const host of picked[fate]!) {
        const got = await rows(`SELECT DISTINCT error, status_code FROM fetches WHERE host = '${host}'`);
        expect([host, got], fate).toEqual([host, [{ error: code, status_code: null }]]);
        const files = await rows(`SELECT DISTINCT status FROM files WHERE subject = '${host}'`);
        expect(files, host).toEqual([{ status: 'unreachable' }]);
        // describe() says the same, so benchmarks can score a crawl through this DNS.
        for (const want of Object.values(web!.describe(host).expect)) expect(want?.status, host).toBe('unreachable');
      }
    }
  });

  it('ends SYN-dead hosts as connect time-outs within the deadline, then stops trying their address (unresponsive)', async (ctx) => {
    ready(ctx);
    expect(web!.dns!.synDeadVerified).toBe(true);
    for (const host of picked.syn_dead!) {
      const got = await rows(`SELECT url, error, status_code, remote_ip, duration_ms FROM fetches WHERE host = '${host}' ORDER BY url`);
      expect(got.length, host).toBeGreaterThanOrEqual(2); // robots.txt and ads.txt, HTTPS then the HTTP fallback
      for (const r of got) {
        expect([r.status_code, r.remote_ip], String(r.url)).toEqual([null, plan(host).v4]);
        if (r.error === 'timeout') {
          // A refused connect ends in a millisecond; a dropped SYN holds until the connect deadline…
          expect(Number(r.duration_ms), String(r.url)).toBeGreaterThanOrEqual(CONNECT_MS * 0.9);
          // …and no longer: the request's own deadline (30 s for these kinds) is never what ends it.
          expect(Number(r.duration_ms), String(r.url)).toBeLessThan(30_000);
        } else {
          // Once the address let two connects in a row time out, it is not tried again this run.
          expect(r.error, String(r.url)).toBe('unresponsive');
          expect(Number(r.duration_ms), String(r.url)).toBeLessThan(CONNECT_MS / 2);
        }
      }
    }
    // Per address and port: no request is skipped before two connects to it have timed out.
    const early = await rows(`
      WITH dead AS (
        SELECT remote_ip, split_part(url, ':', 1) AS scheme, error, started_at,
               started_at + to_milliseconds(duration_ms::BIGINT) AS ended_at
        FROM fetches WHERE error IN ('timeout', 'unresponsive') AND host IN (${picked.syn_dead!.map((h) => `'${h}'`).join(', ')}))
      SELECT s.remote_ip, s.scheme, s.started_at FROM dead s
      WHERE s.error = 'unresponsive'
        AND (SELECT count(*) FROM dead t WHERE t.error = 'timeout' AND t.remote_ip = s.remote_ip AND t.scheme = s.scheme AND t.ended_at <= s.started_at + INTERVAL 50 MILLISECOND) < 2`);
    expect(early).toEqual([]);
  });

  it('walls are `blocked` and a 429 `rate_limited`, holding the host and the address DNS gave, counted in the manifest', async (ctx) => {
    ready(ctx);
    for (const host of picked.wall!) {
      expect([host, await rows(`SELECT status FROM files WHERE subject = '${host}' AND file_kind = 'ads.txt'`)]).toEqual([host, [{ status: 'blocked' }]]);
      const errors = await rows(`SELECT DISTINCT error FROM fetches WHERE host IN ('${host}', 'www.${host}') AND url LIKE '%/ads.txt'`);
      expect([host, errors.map((r) => r.error)]).toEqual([host, ['challenge']]);
    }
    const [limited] = picked.rate_limited!;
    expect(await rows(`SELECT status FROM files WHERE subject = '${limited}' AND file_kind = 'ads.txt'`)).toEqual([{ status: 'rate_limited' }]);
    const runs = (await readdir(path.join(outA, '_runs'))).filter((f) => f.endsWith('.json'));
    const manifest = JSON.parse(await readFile(path.join(outA, '_runs', runs[0]!), 'utf8')) as { counts: { walls: number; rate_limited: number; backoffs: { hosts: number; ips: number } } };
    expect(manifest.counts.walls).toBeGreaterThanOrEqual(picked.wall!.length);
    expect(manifest.counts.rate_limited).toBeGreaterThanOrEqual(1);
    // Through DNS the address is known, so it is held too (under --connect-to only the host is).
    expect(manifest.counts.backoffs.hosts).toBeGreaterThanOrEqual(3);
    expect(manifest.counts.backoffs.ips).toBeGreaterThanOrEqual(1);
    for (const host of [...picked.wall!, limited!]) expect(web!.describe(host).expect['ads.txt']?.status).toBe(host === limited ? 'rate_limited' : 'blocked');
  });

  it('resolves CNAME chains and IPv6-only hosts, and connects to the address DNS gave', async (ctx) => {
    ready(ctx);
    for (const host of healthy) {
      const p = plan(host);
      const got = await rows(`SELECT DISTINCT remote_ip FROM fetches WHERE host = '${host}' AND url LIKE '%/robots.txt'`);
      expect([host, got.map((r) => r.remote_ip)]).toEqual([host, [p.v4 ?? p.v6]]);
      // Whatever the site does over HTTP (TLS refused, HTTPS only…), DNS and the connect went through.
      const errors = await rows(`SELECT url, error FROM fetches WHERE host = '${host}' AND (error LIKE 'dns%' OR error IN ('blocked_address', 'connect', 'timeout'))`);
      expect([host, errors]).toEqual([host, []]);
      const answered = await rows(`SELECT count(*)::INT AS n FROM fetches WHERE host = '${host}' AND status_code IS NOT NULL`);
      expect([host, Number(answered[0]!.n) > 0]).toEqual([host, true]);
    }
    expect([picked.cdn_chain!.length, picked.ipv6_only!.length]).toEqual([2, 1]);
    // ::1 when this instance holds it, else an IPv4-mapped literal (net-layout.ts): AAAA either way.
    expect(plan(picked.ipv6_only![0]!)).toMatchObject({ v4: null, v6: web!.dns!.ipv6Address });
  });

  it('records the resolvers and the allowed networks in the run manifest', async (ctx) => {
    ready(ctx);
    const [file] = await readdir(path.join(outA, '_runs'));
    const manifest = JSON.parse(await readFile(path.join(outA, '_runs', file!), 'utf8'));
    expect(manifest.network).toMatchObject({ dns_servers: [`127.0.0.1:${web!.dns!.port}`], allow_addresses: web!.dns!.allowCidrs, block_private_addresses: true, connect_to: [] });
  });

  it('takes the same snapshot (apart from timings and addresses) as a --connect-to crawl of the same hosts', async (ctx) => {
    ready(ctx);
    const viaDns = await crawlList(healthy, { sellers: false });
    const viaConnectTo = await crawlList(healthy, { sellers: false, connect: true });
    const a = await snapshotRows(viaDns, VOLATILE_COLUMNS);
    const b = await snapshotRows(viaConnectTo, VOLATILE_COLUMNS);
    expect(a.fetches!.length).toBeGreaterThan(healthy.length);
    expect(a.files!.length).toBeGreaterThan(healthy.length);
    expect(a).toEqual(b);
  }, 120_000);

  it('adsnap crawl --dns-server/--allow-addresses, and the guard without --allow-addresses', async (ctx) => {
    ready(ctx);
    const list = path.join(tempDir(), 'list.txt');
    await writeFile(list, [picked.nxdomain![0]!, picked.shared![0]!].join('\n') + '\n');
    const base = ['crawl', '--domains', list, '--snapshot-date', DATE, '--progress', 'none', '--no-sellers', '--dns-timeout', '2000', '--cacert', web!.caCertPath];
    const out = tempDir();
    const r = await runCli([...base, '--out', out, ...web!.dns!.crawlArgs]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const guarded = tempDir();
    const g = await runCli([...base, '--out', guarded, '--dns-server', `127.0.0.1:${web!.dns!.port}`]);
    expect(g.code).toBe(0);
    const errorsOf = async (dir: string) => {
      const d = await openSnapshotDb(dir);
      try {
        return (await d.rows(`SELECT host, list(DISTINCT coalesce(error, 'ok')) AS errors FROM fetches GROUP BY host ORDER BY host`)).map((x) => [x.host, [...(x.errors as string[])].sort()]);
      } finally {
        d.close();
      }
    };
    const [nx, ok] = [picked.nxdomain![0]!, picked.shared![0]!];
    expect(Object.fromEntries(await errorsOf(out))).toMatchObject({ [nx]: ['dns_nxdomain'], [ok]: expect.not.arrayContaining(['blocked_address']) });
    expect(Object.fromEntries(await errorsOf(guarded))).toMatchObject({ [nx]: ['dns_nxdomain'], [ok]: ['blocked_address'] });
    const bad = await runCli(['crawl', '--domains', list, '--out', tempDir(), '--allow-addresses', 'not-a-network']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--allow-addresses "not-a-network"/)]);
  }, 120_000);

  it('adsnap simweb --dns prints the flags for a crawl through its DNS as its second line, and stops on SIGTERM', async (ctx) => {
    ready(ctx);
    const child = spawnCli(['simweb', '--hosts', '20', '--dns', '0']);
    const done = finished(child);
    let out = '';
    await new Promise<void>((resolve) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.split('\n').length > 2) resolve();
      });
      child.once('close', () => resolve());
    });
    child.kill('SIGTERM');
    const r = await done;
    const [first, second] = out.split('\n');
    expect(first).toMatch(/^--connect-to :80:127\.0\.0\.1:\d+ --connect-to :443:127\.0\.0\.1:\d+ --cacert \S+$/);
    expect(second).toMatch(/^--dns-server 127\.0\.0\.1:\d+ --allow-addresses 127\.\d+\.0\.0\/16( --allow-addresses ::1\/128)? --cacert \S+$/);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/DNS on 127\.0\.0\.1:\d+ \(UDP, TCP\)/);
    expect(r.stderr).toMatch(/answered \d+ DNS queries/);
  }, 60_000);
});
