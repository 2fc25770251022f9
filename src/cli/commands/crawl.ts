import { readFile } from 'node:fs/promises';
import v8 from 'node:v8';
import { crawl, CRAWL_LIMITS, type CrawlResult } from '../../../pipelines/crawl.js';
import { malformedLines } from '../../../pipelines/list-check.js';
import { RunStats } from '../../../pipelines/run-stats.js';
import { formatDnsServer, parseAllowCidr, parseConnectTo, parseDnsServer } from '../../fetch/index.js';
import { parseShard } from '../../util/shard.js';
import { loadAgentsCatalogue, type AgentsCatalogue } from '../../resolve/agents-catalogue.js';
import { isRobotsSemantics } from '../../parse/robots/index.js';
import { intFlag, parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import { fmtBytes, fmtDuration, startProgress } from '../progress.js';
import { UsageError } from '../usage-error.js';
import { visibleLines } from '../../text/visible.js';
import { resolveDomainsList } from '../list-knobs.js';
import { isNamedList } from '../../sources/named-lists/index.js';
import { defaultUserAgent } from '../../util/version.js';
import { EXIT, exitStatusOf } from '../exit-codes.js';
import { checkOutDir } from '../out-dir.js';
import { KNOB_FLAGS, KNOBS_USAGE, resolveKnobs } from '../crawl-knobs.js';

const usage = `Usage: adsnap crawl --domains FILE|PROVIDER:SELECTOR [--apps FILE] --out DIR [options]

Crawls every listed site (robots.txt, ads.txt, declared subdomains, inventory partners) and app
(store page, developer site's app-ads.txt), then the sellers.json of every ad system named, and
writes one snapshot of Parquet tables under DIR (DIR/<table>/snapshot_date=YYYY-MM-DD/).

Inputs (text, CSV with a domain/store_url column, Tranco rank,domain; .gz or .zip; '-' = stdin):
  --domains FILE          domain list
  --domains PROVIDER:SELECTOR
                          a top list by name, downloaded once into the list cache:
                          tranco:latest | tranco:YYYY-MM-DD | tranco:id:ID (a date not yet published
                          walks back up to 7 days), crux:YYYYMM | crux:YYYYMM:CC, majestic:latest,
                          radar:latest | radar:YYYY-MM-DD (token in CLOUDFLARE_API_TOKEN). 'latest'
                          is resolved once per snapshot date. The manifest records provider,
                          selector, resolved date, list id, URL, bytes and sha256 (named_list)
  --list-cache DIR        where named lists are kept (default OUT/_lists); a cached list is read with
                          no request, and stands in when the provider cannot be reached
  --list-provider-url PROVIDER=URL
                          base URL of a provider, its paths kept below it (repeatable; a mirror, or
                          a test server)
  --top N                 the first N entries of the list (the same as --limit N)
  --apps FILE             app list (store URLs, or CSV with store_url[,developer_url,bundle_id,store_id])
  --zip-entry NAME        entry to read from a .zip (default: the first)
  --limit N               stop after N accepted list entries

Output:
  --out DIR               snapshot root (required)
  --snapshot-date DATE    YYYY-MM-DD (default: today, UTC)
  --run-id ID             run id, a plain name of letters, digits, '-' and '_' (default: derived from
                          the arguments, so that running the same command again resumes an
                          interrupted run, or does nothing if it finished; required with stdin)
  --checkpoint-interval S seconds between checkpoints of a resumable run (default 300; 0 = none;
                          at most 86400)
  --restart               discard an interrupted attempt of this run (its checkpoint and staged
                          parts) and crawl from the start, e.g. after the list was replaced
  --allow-empty           commit a snapshot even when a list has no accepted entry (default: exit 2
                          and create nothing; the first malformed lines are shown)

Incremental snapshots (ads.txt 1.1 §3.1, §3.6; RFC 9309 §2.4):
  --previous DIR|none     earlier snapshot to build on (default: the latest earlier date under --out).
                          Every file is asked for again, conditionally where the earlier copy has
                          validators: a 304 re-reads the earlier body (files.obtained 'revalidated'),
                          and a failed fetch falls back to the earlier copy within its limits
                          ('carried_forward'). files.status is always what the content was.
  --reuse-fresh           reuse earlier copies that are still fresh without a request ('reused'):
                          fewer requests, but a file changed meanwhile is not seen that night
  --revalidate            (accepted for older scripts: asking every night is now the default)
  --no-bodies             do not keep fetched bodies under DIR/_bodies (no reuse, no reparse)
  --now TIME              ISO time used as "now" for freshness (tests, benchmarks, backfills)

Fetching:
  --connect-to H1:P1:H2:P2  connect to H2:P2 for requests to H1:P1 (repeatable; empty H1 = any host)
  --cacert FILE           extra trusted CA certificates (PEM)
  --dns-server ADDR[:PORT]  ask this DNS resolver instead of the system's (repeatable, tried in
                          order; IPv6 as [::1]:53). Failures are recorded by class: dns_nxdomain,
                          dns_servfail, dns_refused, dns_timeout, dns_no_address (docs/guide/real-web.md)
  --dns-timeout MS        first try of a DNS query (default 5000; doubled on the second try)
  --allow-addresses CIDR  let DNS answers in this network through the private-address guard
                          (repeatable; a test network such as simweb --dns; never a default;
                          recorded in the run manifest)
  --user-agent S          User-Agent header (default names adsnap and its URL)
  --obey-robots MODE      'store' (default: store pages obey robots.txt; ads.txt, app-ads.txt and
                          sellers.json are fetched and their robots verdict recorded) or 'all'
  --robots-semantics R    reading of robots.txt for every verdict (robots_verdicts.semantics) and
                          for adsnap's own obedience: 'rfc' (default, RFC 9309) or 'google' (what
                          Google's open-source matcher answers; docs/reference/robots-semantics.md)
  --no-sellers            skip the sellers.json phase (ad systems and intermediaries)
  --agents-catalogue FILE AI and ad crawlers whose robots.txt treatment is recorded per host
                          (robots_agent_access), instead of the shipped data/agents-catalogue.json;
                          same format (docs/reference/ai-crawlers.md), checked before the crawl
  --ai-signals            also ask each listed site for its consent files beyond robots.txt:
                          /.well-known/tdmrep.json (W3C TDMRep), /llms.txt, and the RSL licence a
                          robots.txt License line names on the site's own host (up to 3 requests
                          more per site; docs/reference/ai-signals.md). robots.txt License lines
                          and tdm-reservation/tdm-policy headers are always kept

sellers.json (IAB sellers.json 1.0):
  --sellers-location AD_SYSTEM=URL
                          where AD_SYSTEM publishes its sellers.json when not at
                          https://AD_SYSTEM/sellers.json (repeatable; adds to or overrides the shipped
                          table data/sellers-locations.tsv, e.g. google.com is read from
                          https://realtimebidding.google.com/sellers.json). The file stays AD_SYSTEM's.
  --sellers-locations FILE  more such entries, one 'AD_SYSTEM<TAB>URL[<TAB>source]' a line (the
                          shipped table's format; --sellers-location wins over it)
  --sellers-depth N       follow INTERMEDIARY/BOTH entries to the intermediaries' own sellers.json,
                          N rounds deep (default 5; 0 = only the ad systems named by records; at most 32)
  --max-intermediaries N  at most N intermediary sellers.json a night (default 20000); reaching it is
                          recorded in the run manifest (sellers_rounds.limit_reached)
  All four may also be keys of --config FILE (flags win); the manifest records the run's locations
  (options.sellers_locations) and the shipped table's sha256 and entry count
  (options.sellers_locations_table).

Scale-out (one snapshot over many machines, on an existing engine such as Kubernetes Indexed Jobs):
  --shard K/N             crawl only the sites and apps whose registrable domain hashes to K (0 ≤ K < N)
  --stage STAGE           'targets' (default), then 'referrals', then 'sellers', then
                          'intermediaries': run every shard's stage before any shard's next one (each
                          stage reads what all shards of the previous one found from DIR/_shards/);
                          'intermediaries' (the sellers.json rounds after the ad systems') runs once,
                          as --shard 0/N. All stages take the same arguments. The union of the
                          shards' tables equals a single-machine run.

${KNOBS_USAGE}

Reporting:
  --progress MODE         'tty' (status line), 'json' (JSON lines on stderr), 'none'
                          (default: tty when stderr is a terminal, else json)
  --log-interval SECONDS  JSON progress cadence (default 10)

Resuming: a run stopped at any moment (SIGTERM, SIGKILL, a crash, the commit included) leaves its
sealed parts in DIR/_staging/ (invisible to table globs). Running the same command again goes on
from its last checkpoint (or finishes the commit) and commits one snapshot with no duplicate and
no missing row. A run is identified by its arguments and checked against its lists' bytes: a
resume whose list changed refuses (use --restart). Only one attempt of a run is alive at a time:
a second one exits 75 naming the first (host, pid, since, last heartbeat). A lock is stale, and
taken over at once, when its heartbeat is older than --lock-stale (default 30 s) or, on the same
machine, when the process that wrote it is gone (a pid now owned by another process, a container
restarted as pid 1, a SIGKILLed holder still being torn down, never count).

Malformed list lines are skipped; the first few are printed on stderr with their line number and
reason, and the manifest keeps the first 20 (list.malformedSamples) and the count by reason.

Exit status (a scheduler can act on it; docs/guide/scale.md shows Kubernetes' podFailurePolicy):
  0   the snapshot was written, or was already complete (sites failing is normal and recorded)
  1   the run failed: no partial snapshot is visible, and the same command resumes it
  2   usage or configuration error, found before anything was created: a bad flag or --config
      knob, --out naming a file, a list with no accepted entry, a list replaced under a started
      run (--restart); running the same command again cannot succeed
  75  not now (EX_TEMPFAIL): another attempt of this run is alive, or a stage started before
      every shard finished the one before; run the same command again later`;

/**
 * Memory: a crawl's live heap is small (25–40 MB) but it allocates fast (TLS certificate checks,
 * body chunks), and V8 lets such a heap grow to 3–5× its live size before collecting. A slower
 * heap growth keeps peak RSS near the live set, for ~10% more CPU (bench/crawl.bench.ts;
 * docs/performance.md). Set before the crawl allocates anything. The semi-space cap cannot resize the
 * main isolate's young generation, which V8 sized at startup (it still grows to 2 × 16 MB); it
 * applies to the Parquet worker, whose isolate is created after this.
 *
 * Tried and not set: `--compact-on-every-full-gc`. V8 leaves old-space pages half full of
 * promoted request state, so committed old space is about twice the live heap. Compacting every
 * time holds it at the live size, but each compaction first takes new pages for everything it
 * moves, so peak RSS did not fall, and it cost ~9% CPU (docs/performance.md, history).
 */
function tuneHeapForCrawling(): void {
  if (process.env.ADSNAP_NO_HEAP_TUNING) return;
  v8.setFlagsFromString('--heap-growing-percent=50');
  v8.setFlagsFromString('--max-semi-space-size=4');
}

export const command: Command = {
  summary: 'crawl domain and app lists into a Parquet snapshot',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      domains: { type: 'string' },
      apps: { type: 'string' },
      out: { type: 'string' },
      'zip-entry': { type: 'string' },
      limit: { type: 'string' },
      top: { type: 'string' },
      'list-cache': { type: 'string' },
      'list-provider-url': { type: 'string', multiple: true },
      'snapshot-date': { type: 'string' },
      'run-id': { type: 'string' },
      'connect-to': { type: 'string', multiple: true },
      cacert: { type: 'string', multiple: true },
      'dns-server': { type: 'string', multiple: true },
      'dns-timeout': { type: 'string' },
      'allow-addresses': { type: 'string', multiple: true },
      ...KNOB_FLAGS,
      'user-agent': { type: 'string' },
      'obey-robots': { type: 'string' },
      'robots-semantics': { type: 'string' },
      'no-sellers': { type: 'boolean' },
      'agents-catalogue': { type: 'string' },
      'sellers-location': { type: 'string', multiple: true },
      'sellers-locations': { type: 'string' },
      'sellers-depth': { type: 'string' },
      'max-intermediaries': { type: 'string' },
      progress: { type: 'string' },
      'log-interval': { type: 'string' },
      'checkpoint-interval': { type: 'string' },
      shard: { type: 'string' },
      previous: { type: 'string' },
      revalidate: { type: 'boolean' },
      'reuse-fresh': { type: 'boolean' },
      'ai-signals': { type: 'boolean' },
      'no-bodies': { type: 'boolean' },
      now: { type: 'string' },
      stage: { type: 'string' },
      restart: { type: 'boolean' },
      'allow-empty': { type: 'boolean' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    if (!values.domains && !values.apps) throw new UsageError('give --domains FILE and/or --apps FILE');
    if (values.domains === '-' && values.shard !== undefined) throw new UsageError('a sharded crawl reads its list again in each stage: give a file, not stdin');
    if (!values.out) throw new UsageError('--out DIR is required');
    await checkOutDir(values.out);
    const snapshotDate = values['snapshot-date'];
    if (snapshotDate !== undefined && !isIsoDate(snapshotDate)) throw new UsageError(`--snapshot-date must be YYYY-MM-DD, got ${JSON.stringify(snapshotDate)}`);
    const obeyRobots = values['obey-robots'] ?? 'store';
    if (obeyRobots !== 'store' && obeyRobots !== 'all') throw new UsageError(`--obey-robots must be 'store' or 'all'`);
    const robotsSemantics = values['robots-semantics'] ?? 'rfc';
    if (!isRobotsSemantics(robotsSemantics)) throw new UsageError(`--robots-semantics must be 'rfc' or 'google', got ${JSON.stringify(robotsSemantics)}`);
    const progressMode = values.progress ?? (process.stderr.isTTY ? 'tty' : 'json');
    if (progressMode !== 'tty' && progressMode !== 'json' && progressMode !== 'none') throw new UsageError(`--progress must be tty, json or none`);
    let connectTo;
    try {
      connectTo = (values['connect-to'] ?? []).map(parseConnectTo);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    let network;
    try {
      network = {
        dnsServers: (values['dns-server'] ?? []).map((s) => formatDnsServer(parseDnsServer(s))),
        allowAddresses: (values['allow-addresses'] ?? []).map(parseAllowCidr),
        ...(values['dns-timeout'] !== undefined ? { dnsTimeoutMs: intFlag('dns-timeout', values['dns-timeout'], 5000, 1, 60_000) } : {}),
      };
    } catch (err) {
      throw err instanceof UsageError ? err : new UsageError((err as Error).message);
    }
    const caCerts: string[] = [];
    for (const file of values.cacert ?? []) {
      try {
        caCerts.push(await readFile(file, 'utf8'));
      } catch (err) {
        throw new UsageError(`--cacert ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    }
    let shard = null;
    if (values.shard !== undefined) {
      try {
        shard = parseShard(values.shard);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    const stage = values.stage ?? 'targets';
    if (stage !== 'targets' && stage !== 'referrals' && stage !== 'sellers' && stage !== 'intermediaries') throw new UsageError(`--stage must be targets, referrals, sellers or intermediaries`);
    if (values.stage !== undefined && !shard) throw new UsageError('--stage needs --shard K/N');
    if (stage === 'intermediaries' && shard && shard.index !== 0) throw new UsageError(`--stage intermediaries runs once, as --shard 0/${shard.count} (each round needs every file of the round before)`);
    let agentsCatalogue: AgentsCatalogue | undefined;
    if (values['agents-catalogue'] !== undefined) {
      try {
        agentsCatalogue = await loadAgentsCatalogue(values['agents-catalogue']);
      } catch (err) {
        throw new UsageError(`--agents-catalogue: ${(err as Error).message}`);
      }
    }
    const now = values.now === undefined ? undefined : new Date(values.now);
    if (now !== undefined && Number.isNaN(now.getTime())) throw new UsageError(`--now must be an ISO time, got ${JSON.stringify(values.now)}`);
    const runId = values['run-id'];
    if (runId !== undefined && !/^[A-Za-z0-9_-]{1,80}$/.test(runId)) throw new UsageError(`--run-id must be a plain name of 1–80 letters, digits, '-' or '_', got ${JSON.stringify(runId)}`);
    if ((values.domains === '-' || values.apps === '-') && runId === undefined) throw new UsageError('a list read from stdin needs --run-id NAME (the run is recognised by it, and checked against the bytes read)');
    if (values.domains === '-' && values.apps === '-') throw new UsageError('only one of --domains and --apps can be stdin');
    // Time-outs, caps, retries, holds, DNS cache, concurrency, sellers.json locations and rounds:
    // flags over --config FILE (crawl-knobs.ts).
    const knobs = await resolveKnobs(values);
    const concurrency = knobs.concurrency;
    const limit = listLimit(values.limit, values.top);
    // A list named by provider: resolved to a cached file now (a request only when the cache lacks it).
    const named = values.domains && isNamedList(values.domains) ? await resolveDomainsList(values.domains, knobs.lists, { outDir: values.out, day: snapshotDate ?? new Date().toISOString().slice(0, 10), userAgent: values['user-agent'] ?? knobs.fetch.userAgent ?? defaultUserAgent }) : null;
    if (named) process.stderr.write(`adsnap crawl: ${values.domains} is ${named.sourceName}, ${named.record.bytes} bytes${named.fromCache ? ' (from the list cache)' : ''}${named.record.note ? `; ${named.record.note}` : ''}\n`);
    const checkpointSeconds = intFlag('checkpoint-interval', values['checkpoint-interval'], 300, 0, CRAWL_LIMITS.checkpointSeconds);
    const logIntervalMs = intFlag('log-interval', values['log-interval'], 10, 1, 86_400) * 1000;

    tuneHeapForCrawling();
    const controller = new AbortController();
    const onSignal = (sig: NodeJS.Signals) => {
      process.stderr.write(`\nadsnap crawl: ${sig}: stopping; no partial snapshot will be left\n`);
      controller.abort(new Error(`interrupted by ${sig}`));
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);

    const stats = new RunStats();
    const progress = startProgress(stats, { mode: progressMode, intervalMs: progressMode === 'json' ? logIntervalMs : undefined });
    try {
      const result = await crawl({
        domains: named ? named.file : (values.domains ?? null),
        ...(named ? { domainsSource: named.sourceName, namedList: { ...named.record, from_cache: named.fromCache, offline: named.offline } } : {}),
        apps: values.apps ?? null,
        outDir: values.out,
        snapshotDate,
        runId,
        restart: values.restart ?? false,
        allowEmpty: values['allow-empty'] ?? false,
        limit,
        zipEntry: values['zip-entry'],
        concurrency,
        obeyRobots,
        robotsSemantics,
        sellers: !values['no-sellers'],
        sellersLocations: knobs.sellers.locations,
        agentsCatalogue,
        sellersDepth: knobs.sellers.depth,
        maxIntermediaries: knobs.sellers.maxIntermediaries,
        checkpointSeconds,
        shard,
        stage,
        previous: values.previous === undefined ? 'auto' : values.previous === 'none' ? null : values.previous,
        reuseFresh: values['reuse-fresh'] ?? false,
        aiSignals: values['ai-signals'] ?? false,
        keepBodies: !values['no-bodies'],
        now,
        signal: controller.signal,
        stats,
        configFile: knobs.configFile,
        lock: knobs.lock,
        fetch: {
          connectTo,
          caCerts,
          ...network,
          ...(values['user-agent'] ? { userAgent: values['user-agent'] } : {}),
          ...knobs.fetch,
        },
      });
      progress.stop();
      if (result.alreadyComplete) {
        process.stdout.write(`snapshot ${result.snapshotDate} run ${result.runId} is already complete (${result.manifestPath}); nothing to do\n`);
        return 0;
      }
      const s = result.stats.snapshot();
      const lines = [
        `snapshot ${result.snapshotDate} written to ${values.out} (run ${result.runId}${result.resumed ? ', resumed from a checkpoint' : ''}) in ${fmtDuration(s.elapsed_s)}`,
        `  targets ${s.targets_done}, apps ${s.apps_done}, partners ${s.partners_done}, sellers.json ${s.sellers_done}${s.sellers_round ? ` (rounds to ${s.sellers_round})` : ''}; ${s.requests} requests, ${fmtBytes(s.bytes)}`,
      ];
      if (result.list) lines.push(`  list: ${result.list.accepted} accepted, ${result.list.duplicates} duplicates, ${result.list.malformed} malformed of ${result.list.lines} lines`);
      for (const [table, t] of Object.entries(result.tables)) lines.push(`  ${table.padEnd(16)} ${t.rows} rows`);
      lines.push(`  manifest: ${result.manifestPath}`);
      process.stdout.write(lines.join('\n') + '\n');
      reportMalformed(result);
      return EXIT.done;
    } catch (err) {
      progress.stop();
      const status = exitStatusOf(err);
      const what = status === EXIT.tempFail ? 'not now (exit 75: run the same command again later)' : status === EXIT.usage ? 'refused (exit 2)' : 'run failed';
      process.stderr.write(`adsnap crawl: ${what}: ${visibleLines((err as Error).message)}\n`);
      return status;
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
  },
};

/** `--limit N` and its alias `--top N` (the first N entries); both given must agree. */
function listLimit(limit: string | undefined, top: string | undefined): number | undefined {
  const l = limit === undefined ? undefined : intFlag('limit', limit, 0, 0);
  const t = top === undefined ? undefined : intFlag('top', top, 0, 0);
  if (l !== undefined && t !== undefined && l !== t) throw new UsageError(`--top ${t} and --limit ${l} disagree: give one`);
  return t ?? l;
}

/** The first malformed lines of each list on stderr, with the manifest that keeps more of them and their count by reason. */
function reportMalformed(result: CrawlResult): void {
  for (const [name, list] of [['domain', result.list], ['app', result.appList]] as const) {
    if (!list || list.malformed === 0) continue;
    process.stderr.write(visibleLines(`adsnap crawl: ${list.malformed} malformed line${list.malformed > 1 ? 's' : ''} in the ${name} list (skipped):${malformedLines(list)}\n  the first ${list.malformedSamples.length} with their reasons are in ${result.manifestPath} (${name === 'domain' ? 'list' : 'app_list'}.malformedSamples)\n`));
  }
}

function isIsoDate(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
}
