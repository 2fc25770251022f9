import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Command } from '../command.js';
import { intFlag, parseCommandArgs } from '../args.js';
import { UsageError } from '../usage-error.js';

const usage = `Usage: adsnap simweb [--hosts N] [--seed S] [--list FILE] [--app-list FILE] [--apps N]
                     [--ad-system-list FILE] [--fixtures DIR] [--latency MIN-MAX] [--no-hostile]
                     [--plain-http] [--port P] [--dns PORT]

Serves the simulated web on 127.0.0.1 (HTTP and HTTPS on one port) until interrupted.
The first stdout line is the flags that point a crawl at it:
  --connect-to :80:127.0.0.1:<port> --connect-to :443:127.0.0.1:<port> --cacert <file>

  --hosts N          synthetic root domains (default 1000)
  --seed S           seed: same seed, same web (default "adsnap")
  --list FILE        write the domain list (one root domain per line, rank order) before serving
  --app-list FILE    write the store URLs of the synthetic apps, one per line
  --ad-system-list FILE
                     write the hosts of the ad systems (each serves a sellers.json), one per line
  --apps N           synthetic apps (default max(10, hosts/10))
  --fixtures DIR     also serve hand-written fixture hosts (DIR/<host>/<path>, _routes.json)
  --latency MIN-MAX  per-host answer delay in ms, e.g. 5-200 (default none)
  --no-hostile       do not sprinkle hostile hosts into the list (hostile-<kind>.test stay served)
  --plain-http       every host answers over http:// as over https:// (no redirect to https://, no
                     https-only hosts, redirects to http://): for benchmarks that refuse HTTPS to
                     leave TLS's cost out
  --realweb          the real web's HTTP mix over the listed sites: bot walls, 429s, hosts that never
                     answer, slow answers, HTTP/1.0, br/deflate, charsets, relative Location
                     (src/simweb/realweb-calibration.ts; docs/guide/operating.md)
  --port P           port to listen on (default: any free port)
  --dns PORT         also answer DNS on 127.0.0.1:PORT (UDP and TCP; 0 = any free port) and serve
                     ports 80/443 of the 127.B.x.y addresses it hands out (needs root or
                     CAP_NET_BIND_SERVICE). The second stdout line is then the flags that point a
                     crawl at it without --connect-to:
                       --dns-server 127.0.0.1:<port> --allow-addresses <cidr>… --cacert <file>
                     (docs/guide/real-web.md: failure shares, CDN sharing, SYN-dead hosts)
  --epoch E          night of the simulated web: at E > 0 a fixed 5% of sites serve a revised
                     ads.txt (for incremental-crawl tests and benchmarks; default 0)`;

async function writeLines(file: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(file);
  let buf = '';
  for (const l of lines) {
    buf += l + '\n';
    if (buf.length >= 65536) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await finished(out);
}

function parseLatency(v: string | undefined): { minMs: number; maxMs: number } | null {
  if (v === undefined) return null;
  const m = /^(\d+)(?:-(\d+))?$/.exec(v);
  if (!m) throw new UsageError(`--latency must be MIN-MAX in ms (e.g. 5-200), got ${JSON.stringify(v)}`);
  const minMs = Number(m[1]);
  const maxMs = m[2] === undefined ? minMs : Number(m[2]);
  if (maxMs < minMs) throw new UsageError('--latency: MAX must be ≥ MIN');
  return { minMs, maxMs };
}

export const command: Command = {
  summary: 'serve the simulated web (synthetic, hostile and fixture hosts) for tests, benchmarks and the demo',
  usage,
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseCommandArgs(argv, {
      hosts: { type: 'string' },
      seed: { type: 'string' },
      list: { type: 'string' },
      'app-list': { type: 'string' },
      'ad-system-list': { type: 'string' },
      apps: { type: 'string' },
      fixtures: { type: 'string' },
      latency: { type: 'string' },
      'no-hostile': { type: 'boolean' },
      realweb: { type: 'boolean' },
      'plain-http': { type: 'boolean' },
      port: { type: 'string' },
      epoch: { type: 'string' },
      dns: { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const hosts = intFlag('hosts', values.hosts, 1000, 0);
    const options = {
      hosts,
      seed: values.seed ?? 'adsnap',
      fixturesDir: values.fixtures ?? null,
      latency: parseLatency(values.latency),
      hostile: !values['no-hostile'],
      realweb: values.realweb ?? false,
      plainHttp: values['plain-http'] ?? false,
      apps: intFlag('apps', values.apps, Math.max(10, Math.floor(hosts / 10)), 0),
      port: intFlag('port', values.port, 0, 0),
      epoch: intFlag('epoch', values.epoch, 0, 0),
      dns: values.dns === undefined ? null : { port: intFlag('dns', values.dns, 0, 0, 65535) },
    };
    const { startSimweb } = await import('../../simweb/index.js');
    let web;
    try {
      web = await startSimweb(options);
    } catch (err) {
      if ((err as { code?: string }).code === 'SIMWEB_BIND') throw new UsageError((err as Error).message);
      throw err;
    }
    if (values.list) await writeLines(values.list, web.domains());
    if (values['app-list']) await writeLines(values['app-list'], web.apps());
    if (values['ad-system-list']) await writeLines(values['ad-system-list'], web.adSystems());
    // The stop signals are heard before the flags are printed: a caller may stop the web as soon as it has read them.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    // Contract §1: the first stdout line is exactly the flags that point a crawl here.
    process.stdout.write(`--connect-to :80:127.0.0.1:${web.port} --connect-to :443:127.0.0.1:${web.port} --cacert ${web.caCertPath}\n`);
    if (web.dns) process.stdout.write(`${[...web.dns.crawlArgs, '--cacert', web.caCertPath].join(' ')}\n`);
    process.stderr.write(`adsnap simweb: ${hosts} hosts (seed ${JSON.stringify(options.seed)}) on 127.0.0.1:${web.port}; Ctrl-C to stop\n`);
    if (web.dns) process.stderr.write(`adsnap simweb: DNS on 127.0.0.1:${web.dns.port} (UDP, TCP); sites on ports 80/443 of ${web.dns.allowCidrs[0]}; IPv6-only sites on ${web.dns.ipv6Address}; SYN-dead addresses ${web.dns.synDeadVerified ? 'checked' : 'NOT checked (connects to them may be refused instead)'}\n`);
    await stopped;
    await web.close();
    const s = web.stats();
    if (web.dns) {
      const d = web.dns.stats();
      process.stderr.write(`adsnap simweb: answered ${d.queries} DNS queries (${d.udp} UDP, ${d.tcp} TCP; ${Object.entries(d.byRcode).map(([k, v]) => `${k} ${v}`).join(', ')}; ${d.dropped} left unanswered)\n`);
    }
    process.stderr.write(`adsnap simweb: served ${s.requests} requests over ${s.connections} connections\n`);
    return 0;
  },
};
