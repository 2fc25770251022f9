/**
 * `npm run bench -- simweb`: how fast the simulated web answers, so that it is never the
 * bottleneck of a crawl benchmark (target ≥ 10k requests/s on loopback). The server runs in a
 * child process (this file, re-spawned) and its CPU and RSS are read from /proc; the load comes
 * from bare undici `request()` calls in this process.
 *
 * Scenarios
 *  - http-keepalive: 256 in flight, ads.txt of 2,000 sites × 10 rounds (cached bodies).
 *  - http-robots-small: the same with robots.txt (small bodies: per-request cost).
 *  - http-new-host: 10,000 different hosts, a new connection each (the crawl's shape over HTTP).
 *  - https-new-host: 5,000 different hosts over TLS, a new connection and handshake each.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

const CHILD_FLAG = 'ADSNAP_SIMWEB_BENCH_CHILD';

if (process.env[CHILD_FLAG]) {
  const { startSimweb } = await import('../src/simweb/index.js');
  const web = await startSimweb({ hosts: Number(process.env[CHILD_FLAG]), hostile: false, seed: 'simweb-bench' });
  const domains = [...web.domains()];
  // Hosts that answer plain HTTP (https_only ones drop it), and hosts that complete a TLS handshake.
  const httpHosts = domains.filter((d) => web.describe(d).behaviour.transport !== 'https_only').slice(0, 2000);
  const tlsHosts = domains.filter((d) => web.describe(d).behaviour.tls === 'ok').slice(0, 5000);
  process.stdout.write(JSON.stringify({ port: web.port, caCertPath: web.caCertPath, domains, httpHosts, tlsHosts }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => void web.close().then(() => process.exit(0)));
}

interface Child { port: number; ca: string; domains: string[]; httpHosts: string[]; tlsHosts: string[]; pid: number; cpuMs(): Promise<number>; rssMb(): Promise<number>; stop(): Promise<void> }

async function start(hosts: number): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], { env: { ...process.env, [CHILD_FLAG]: String(hosts) }, stdio: ['pipe', 'pipe', 'inherit'] });
  const rl = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve) => rl.once('line', resolve));
  const info = JSON.parse(first) as { port: number; caCertPath: string; domains: string[]; httpHosts: string[]; tlsHosts: string[] };
  const pid = child.pid!;
  const clk = 100; // USER_HZ on Linux
  return {
    port: info.port, ca: await readFile(info.caCertPath, 'utf8'), domains: info.domains, httpHosts: info.httpHosts, tlsHosts: info.tlsHosts, pid,
    async cpuMs() {
      const f = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
      return ((Number(f[11]) + Number(f[12])) * 1000) / clk;
    },
    async rssMb() {
      const m = /VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
      return Math.round(Number(m![1]) / 1024);
    },
    async stop() {
      child.stdin!.end();
      await new Promise((r) => child.once('exit', r));
    },
  };
}

async function load(c: Child, urls: string[], opts: { concurrency: number; newConnection: boolean }): Promise<{ n: number; seconds: number; serverCpuMs: number; errors: number }> {
  const agent = new Agent({
    connections: opts.newConnection ? null : 4,
    pipelining: 1,
    connect: { ca: c.ca, lookup: (_h, _o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]) },
  });
  let next = 0;
  let errors = 0;
  const cpu0 = await c.cpuMs();
  const t0 = performance.now();
  const worker = async () => {
    while (next < urls.length) {
      const url = new URL(urls[next++]!);
      url.port = String(c.port);
      try {
        const r = await request(url, { dispatcher: agent, headers: { host: url.hostname }, reset: opts.newConnection });
        await r.body.dump();
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const serverCpuMs = (await c.cpuMs()) - cpu0;
  await agent.close();
  return { n: urls.length, seconds, serverCpuMs, errors };
}

export async function run(): Promise<void> {
  const c = await start(50_000);
  const rows: string[] = [];
  const row = (name: string, r: Awaited<ReturnType<typeof load>>) => {
    rows.push(`| ${name} | ${r.n} | ${Math.round(r.n / r.seconds)} | ${Math.round((r.serverCpuMs * 1000) / r.n)} | ${r.errors} |`);
  };
  try {
    // Warm the body caches and JIT, then measure.
    const sites = c.httpHosts;
    const ads = (rounds: number) => Array.from({ length: rounds }, () => sites.map((d) => `http://${d}/ads.txt`)).flat();
    await load(c, ads(1), { concurrency: 64, newConnection: false });
    row('http-keepalive (ads.txt, 2k sites)', await load(c, ads(10), { concurrency: 256, newConnection: false }));
    const robots = Array.from({ length: 10 }, () => sites.map((d) => `http://${d}/robots.txt`)).flat();
    row('http-robots-small (2k sites)', await load(c, robots, { concurrency: 256, newConnection: false }));
    row('http-new-host (10k hosts)', await load(c, c.domains.slice(10_000, 20_000).map((d) => `http://${d}/robots.txt`), { concurrency: 128, newConnection: true }));
    row('https-new-host (5k hosts)', await load(c, c.tlsHosts.slice(0, 5000).map((d) => `https://www.${d}/robots.txt`), { concurrency: 128, newConnection: true }));
    const rss = await c.rssMb();
    console.log('| scenario | requests | req/s | server CPU µs/req | errors |\n|---|---|---|---|---|');
    console.log(rows.join('\n'));
    console.log(`\nserver RSS after all scenarios: ${rss} MB`);
  } finally {
    await c.stop();
  }
}
