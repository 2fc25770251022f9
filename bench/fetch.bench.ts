/**
 * `npm run bench -- fetch`: the fetch stack (src/fetch) against a bare undici `request()` loop,
 * side by side, fetching the same URLs at the same concurrency. Servers run in a child process
 * so the CPU figures are the client's alone.
 *
 * Scenarios (target: the stack keeps ≥ 80% of the bare loop's throughput)
 *  - tls-new-host: 10,000 URLs, each a different host over HTTPS (the crawl's real shape: one
 *    TLS handshake per host), from a local server with one `*.bench.test` certificate.
 *  - keepalive: 200 hosts over plain HTTP, 100 rounds, round-robin (per-request overhead).
 * Each side-by-side pair runs bare then stack, alternately, after one warm-up pass of each;
 * the best of the measured runs of each is shown (a shared 2-core host is noisy).
 *  - rss-20k: the stack over 20,000 distinct HTTPS hosts; RSS afterwards (no pile-up of pools).
 *  - simweb: the stack crawling 1,000 sites of the simulated web (src/simweb), redirects and
 *    fallbacks followed. The simulated web issues a certificate per new site, which bounds it
 *    at roughly a hundred new hosts a second here, so it is shown for realism, not for the ratio.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createSecureContext, rootCertificates } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { Fetcher, resolveFetchConfig, type FetchKind } from '../src/fetch/index.js';

const CHILD_FLAG = 'ADSNAP_FETCH_BENCH_SIMWEB';

// --- child: serve and print where -----------------------------------------------------------
if (process.env[CHILD_FLAG] === 'local') {
  // Any host, any path: 200 with a 2 KB ads.txt, keep-alive; one wildcard certificate.
  const { createTestCa } = await import('../src/simweb/tls-ca.js');
  const http = await import('node:http');
  const https = await import('node:https');
  const ca = await createTestCa('adsnap fetch bench CA');
  const leaf = await ca.leafFor('bench.test', { names: ['*.bench.test'] });
  const body = Buffer.from('greenadexchange.com, XF7342, DIRECT, 5jyxf8k54\n'.repeat(44));
  const handler = (_q: unknown, res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length }).end(body);
  const plain = http.createServer({ keepAliveTimeout: 5000 }, handler);
  const secure = https.createServer({ cert: leaf.certPem, key: leaf.keyPem, keepAliveTimeout: 5000 }, handler);
  const listen = (s: import('node:net').Server) => new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as import('node:net').AddressInfo).port)));
  const [hp, sp] = await Promise.all([listen(plain), listen(secure)]);
  process.stdout.write(JSON.stringify({ httpPort: hp, httpsPort: sp, caPem: ca.certPem, domains: [] }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
} else if (process.env[CHILD_FLAG]) {
  const { startSimweb } = await import('../src/simweb/index.js');
  const web = await startSimweb({ hosts: Number(process.env[CHILD_FLAG]), hostile: false, seed: 'fetch-bench' });
  process.stdout.write(JSON.stringify({ httpPort: web.port, httpsPort: web.port, caPem: web.caCertPem, domains: [...web.domains()] }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => void web.close().then(() => process.exit(0)));
}

interface ServerChild {
  httpPort: number;
  httpsPort: number;
  caPem: string;
  domains: string[];
  stop(): Promise<void>;
}

/** Starts the servers in a child process: 'local' (any host) or a simulated web of N sites. */
async function startChild(what: 'local' | number): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, [CHILD_FLAG]: String(what) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (l) => (rl.close(), resolve(l)));
    child.once('exit', (code) => reject(new Error(`server child exited (${code})`)));
  });
  const info = JSON.parse(first) as Omit<ServerChild, 'stop'>;
  return { ...info, stop: () => new Promise((resolve) => (child.once('exit', () => resolve()), child.stdin!.end())) };
}

/** Runs `work` over `items` with `concurrency` workers. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const countBytes = async (body: AsyncIterable<Uint8Array>) => {
  let n = 0;
  for await (const c of body) n += c.length;
  return n;
};

interface RunResult {
  name: string;
  urls: number;
  requests: number;
  ok: number;
  wallS: number;
  cpuMs: number;
}

async function measure(name: string, urls: readonly string[], run: () => Promise<{ requests: number; ok: number }>): Promise<RunResult> {
  global.gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const { requests, ok } = await run();
  const wallS = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { name, urls: urls.length, requests, ok, wallS, cpuMs: (c.user + c.system) / 1000 };
}

function bareLoop(web: ServerChild, urls: readonly string[], concurrency: number) {
  return async () => {
    // The bare loop gets the same transport as the stack: one Agent, one pool per host origin
    // (every name resolving to the server), one TLS context. It follows nothing, caps nothing.
    const lookup = (_h: string, _o: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) => cb(null, [{ address: '127.0.0.1', family: 4 }]);
    const agent = new Agent({ connect: { secureContext: createSecureContext({ ca: [...rootCertificates, web.caPem] }), lookup } as never, keepAliveTimeout: 2000, pipelining: 1, connections: 1 });
    let requests = 0;
    let ok = 0;
    await pool(urls, concurrency, async (u) => {
      const url = new URL(u);
      requests++;
      try {
        const res = await agent.request({
          origin: `${url.protocol}//${url.hostname}:${url.protocol === 'https:' ? web.httpsPort : web.httpPort}`,
          path: url.pathname + url.search,
          method: 'GET',
          headers: { host: url.host, 'user-agent': 'bare-undici' },
        });
        await countBytes(res.body);
        if (res.statusCode < 400) ok++;
      } catch {
        /* counted as not ok */
      }
    });
    await agent.close();
    return { requests, ok };
  };
}

function newFetcher(web: ServerChild, concurrency: number): Fetcher {
  // Every simulated host is on 127.0.0.1, so the per-IP cap is raised to the concurrency
  // (connect-to targets are exempt anyway); per-host stays 1 as in a crawl.
  return new Fetcher(
    resolveFetchConfig({
      connectTo: [`:80:127.0.0.1:${web.httpPort}`, `:443:127.0.0.1:${web.httpsPort}`],
      caCerts: [web.caPem],
      concurrency,
      perIp: concurrency,
      resolver: async (h) => {
        throw Object.assign(new Error(`no DNS in benchmarks (${h})`), { code: 'ENOTFOUND' });
      },
    }),
  );
}

function stackLoop(web: ServerChild, urls: readonly string[], concurrency: number, kind: FetchKind) {
  return async () => {
    const f = newFetcher(web, concurrency);
    let ok = 0;
    await pool(urls, concurrency, async (u) => {
      const o = await f.fetch({ url: u, kind, subject: new URL(u).hostname }, countBytes);
      if (o.status !== null && o.status < 400) ok++;
    });
    const requests = f.stats().requests;
    await f.close();
    return { requests, ok };
  };
}

function row(r: RunResult, base?: RunResult): string {
  const rps = r.requests / r.wallS;
  const rel = base ? `${Math.round((100 * rps) / (base.requests / base.wallS))}%` : '—';
  return `| ${r.name} | ${r.urls} | ${r.requests} | ${r.ok} | ${r.wallS.toFixed(2)} | ${Math.round(rps)} | ${rel} | ${Math.round((r.cpuMs * 1000) / r.requests)} |`;
}

/** Alternates bare and stack runs and keeps each one's best, to damp a noisy shared host. */
async function sideBySide(label: string, web: ServerChild, urls: string[], concurrency: number, kind: FetchKind, rounds = 2): Promise<string[]> {
  let bare: RunResult | null = null;
  let stack: RunResult | null = null;
  const rate = (r: RunResult | null) => (r ? r.requests / r.wallS : 0);
  // Warm-up (JIT) on a slice, not measured.
  const warm = urls.slice(0, Math.min(urls.length, 2000));
  await bareLoop(web, warm, concurrency)();
  await stackLoop(web, warm.map((u) => u.replace('://', '://w')), concurrency, kind)();
  for (let i = 0; i < rounds; i++) {
    const b = await measure(`${label}: bare request()`, urls, bareLoop(web, urls, concurrency));
    const s = await measure(`${label}: fetch stack`, urls, stackLoop(web, urls, concurrency, kind));
    if (rate(b) > rate(bare)) bare = b;
    if (rate(s) > rate(stack)) stack = s;
  }
  return [row(bare!), row(stack!, bare!)];
}

const mb = (n: number) => Math.round(n / 2 ** 20);

export async function run(): Promise<void> {
  const concurrency = 64;
  const lines: string[] = [];
  const local = await startChild('local');
  let rssLine = '';
  try {
    const tlsUrls = Array.from({ length: 10_000 }, (_, i) => `https://h${i}.bench.test/ads.txt`);
    lines.push(...(await sideBySide('tls-new-host', local, tlsUrls, concurrency, 'ads.txt')));
    const kaUrls: string[] = [];
    for (let r = 0; r < 100; r++) for (let h = 0; h < 200; h++) kaUrls.push(`http://k${h}.bench.test/robots.txt`);
    lines.push(...(await sideBySide('keepalive', local, kaUrls, concurrency, 'robots.txt', 3)));

    const urls = Array.from({ length: 20_000 }, (_, i) => `https://r${i}.bench.test/ads.txt`);
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
    const r = await measure('rss-20k: fetch stack', urls, stackLoop(local, urls, concurrency, 'ads.txt'));
    clearInterval(timer);
    global.gc?.();
    rssLine = `| ${r.requests} | ${r.wallS.toFixed(1)} | ${Math.round(r.requests / r.wallS)} | ${mb(rss0)} | ${mb(peak)} | ${mb(process.memoryUsage().rss)} |`;
  } finally {
    await local.stop();
  }

  const sim = await startChild(1000);
  let simLine = '';
  try {
    const f = newFetcher(sim, concurrency);
    const byStatus = new Map<string, number>();
    const t0 = performance.now();
    await pool(sim.domains, concurrency, async (d) => {
      const o = await f.fetch({ url: `https://${d}/ads.txt`, kind: 'ads.txt', subject: d }, countBytes);
      const k = o.error ?? String(o.status);
      byStatus.set(k, (byStatus.get(k) ?? 0) + 1);
    });
    const wall = (performance.now() - t0) / 1000;
    const st = f.stats();
    await f.close();
    const dist = [...byStatus].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}: ${n}`).join(', ');
    simLine = `| ${sim.domains.length} | ${st.requests} | ${wall.toFixed(1)} | ${Math.round(sim.domains.length / wall)} | ${dist} |`;
  } finally {
    await sim.stop();
  }

  console.log(`concurrency ${concurrency}, per-host 1; servers in a child process; CPU = this process only.\n`);
  console.log(['| run | URLs | requests | ok | wall s | req/s | vs bare | CPU µs/req |', '|---|---|---|---|---|---|---|---|', ...lines].join('\n'));
  console.log('\n| rss-20k: requests | wall s | req/s | RSS before MB | peak MB | after (gc) MB |\n|---|---|---|---|---|---|');
  console.log(rssLine);
  console.log('\n| simweb: sites | requests | wall s | sites/s | outcomes (error or status) |\n|---|---|---|---|---|');
  console.log(simLine);
}
