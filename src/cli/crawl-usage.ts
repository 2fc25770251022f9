/**
 * `adsnap crawl --help`. Every default and bound it states is read from where it is defined
 * (crawl-options.ts, sellers-rounds.ts, src/fetch/config.ts, src/store/run-lock.ts,
 * crawl-flags.ts), never typed twice.
 */
import { CRAWL_LIMITS, DEFAULT_CHECKPOINT_SECONDS } from '../../pipelines/crawl-options.js';
import { SELLERS_DEFAULTS } from '../../pipelines/sellers-rounds.js';
import { RUN_LOCK_DEFAULTS } from '../store/run-lock.js';
import { FETCH_CONFIG_DEFAULTS, KNOBS_USAGE } from './crawl-knobs.js';
import { DEFAULT_LOG_INTERVAL_SECONDS } from './crawl-flags.js';

export const CRAWL_USAGE = `Usage: adsnap crawl --domains FILE|PROVIDER:SELECTOR [--apps FILE] --out DIR [options]

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
  --checkpoint-interval S seconds between checkpoints of a resumable run (default ${DEFAULT_CHECKPOINT_SECONDS}; 0 = none;
                          at most ${CRAWL_LIMITS.checkpointSeconds})
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
  --dns-timeout MS        first try of a DNS query (default ${FETCH_CONFIG_DEFAULTS.dnsTimeoutMs}; doubled on the second try)
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
                          N rounds deep (default ${SELLERS_DEFAULTS.depth}; 0 = only the ad systems named by records; at most ${CRAWL_LIMITS.sellersDepth})
  --max-intermediaries N  at most N intermediary sellers.json a night (default ${SELLERS_DEFAULTS.maxIntermediaries}); reaching it is
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
  --log-interval SECONDS  JSON progress cadence (default ${DEFAULT_LOG_INTERVAL_SECONDS})

Resuming: a run stopped at any moment (SIGTERM, SIGKILL, a crash, the commit included) leaves its
sealed parts in DIR/_staging/ (invisible to table globs). Running the same command again goes on
from its last checkpoint (or finishes the commit) and commits one snapshot with no duplicate and
no missing row. A run is identified by its arguments and checked against its lists' bytes: a
resume whose list changed refuses (use --restart). Only one attempt of a run is alive at a time:
a second one exits 75 naming the first (host, pid, since, last heartbeat). A lock is stale, and
taken over at once, when its heartbeat is older than --lock-stale (default ${RUN_LOCK_DEFAULTS.staleMs / 1000} s) or, on the same
machine, when the process that wrote it is gone (a pid now owned by another process, a container
restarted as pid 1, a SIGKILLed holder still being torn down, never count).

Processes: the crawl runs in a child process (its pid is the one the run lock names), which exits
once the run is sealed; this process then commits it, so that the memory the crawl used is gone
before the commit's DuckDB starts. SIGTERM and SIGINT are passed to the child; if this process
dies (SIGKILL), the child is killed at once. A list read from stdin, or ADSNAP_COMMIT_PROCESS=same,
keeps both in one process.

Malformed list lines are skipped; the first few are printed on stderr with their line number and
reason, and the manifest keeps the first 20 (list.malformedSamples) and the count by reason.

Exit status (a scheduler can act on it; docs/guide/scale.md shows Kubernetes' podFailurePolicy):
  0   the snapshot was written, or was already complete (sites failing is normal and recorded)
  1   the run failed: no partial snapshot is visible, and the same command resumes it
  2   usage or configuration error, found before anything was created: a bad flag or --config
      knob, --out naming a file, a list with no accepted entry, a list replaced under a started
      run (--restart); running the same command again cannot succeed
  75  not now (EX_TEMPFAIL): another attempt of this run is alive, a stage started before
      every shard finished the one before, or a named list's provider cannot be reached (or
      answers 429 or 5xx) and no cached copy stands in; run the same command again later

An error is one line on stderr; --debug (or ADSNAP_DEBUG=1) prints its stack trace.`;
