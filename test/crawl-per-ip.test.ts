import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { createTestTls, type TestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * Politeness on shared addresses: CDN-style sharing, many sites behind one address.
 * DNS (an injected resolver) gives every host the same address, 127.0.0.1, and a port-only
 * `--connect-to` rule (`:443::PORT`, HOST2 empty: the address still comes from DNS) reaches the
 * test servers. The servers count the requests open at once, per local address, from their side.
 */

const tmpDir = useTempDirs('per-ip');
let tls: TestTls;
let web: LocalWeb;
const HOSTS = Array.from({ length: 24 }, (_, i) => `cdn-site-${i}.example`);

/** Requests open at once on the server side, per address the connection was made to. */
const meter = { open: new Map<string, number>(), max: new Map<string, number>(), total: 0 };
function slow(body: string, type: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const a = req.socket.localAddress ?? '?';
    meter.open.set(a, (meter.open.get(a) ?? 0) + 1);
    meter.max.set(a, Math.max(meter.max.get(a) ?? 0, meter.open.get(a)!));
    meter.total++;
    setTimeout(() => {
      meter.open.set(a, meter.open.get(a)! - 1);
      res.writeHead(200, { 'content-type': type }).end(body);
    }, 120);
  };
}

beforeAll(async () => {
  tls = await createTestTls();
  web = await startLocalWeb(tls);
  for (const h of HOSTS) {
    web.route(`https://${h}/robots.txt`, slow('User-agent: *\nAllow: /\n', 'text/plain'));
    web.route(`https://${h}/ads.txt`, slow(`greenadexchange.com, ${h.length}, DIRECT\n`, 'text/plain'));
  }
});
afterAll(async () => {
  await web.close();
});

async function crawlShared(perIp: number): Promise<void> {
  meter.max.clear();
  meter.open.clear();
  meter.total = 0;
  const dir = tmpDir();
  const list = path.join(dir, 'list.txt');
  writeFileSync(list, HOSTS.join('\n') + '\n');
  await crawl({
    domains: list,
    outDir: path.join(dir, 'snap'),
    snapshotDate: '2026-11-25',
    checkpointSeconds: 0,
    previous: null,
    sellers: false,
    concurrency: 24,
    fetch: {
      connectTo: [`:443::${web.httpsPort}`, `:80::${web.httpPort}`],
      resolver: async () => ['127.0.0.1'],
      blockPrivateAddresses: false,
      caCerts: [tls.caPem],
      perIp,
      retries: 0,
    },
  });
}

describe('--per-ip on an address many sites share', () => {
  it('never has more than --per-ip requests open on the address, and does use them', async () => {
    await crawlShared(3);
    expect(meter.total).toBe(HOSTS.length * 2); // robots.txt and ads.txt of every site
    expect([...meter.max.keys()]).toEqual(['127.0.0.1']);
    expect(meter.max.get('127.0.0.1')).toBe(3);
  }, 60_000);

  it('the same crawl with a higher limit opens more at once (the meter can see it)', async () => {
    await crawlShared(12);
    expect(meter.max.get('127.0.0.1')).toBeGreaterThan(3);
    expect(meter.max.get('127.0.0.1')).toBeLessThanOrEqual(12);
  }, 60_000);
});
