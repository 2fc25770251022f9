/**
 * What the run manifest says of a run (written by the commit, saved in the checkpoint first so
 * that a resumed commit writes the same): built by the runner, which alone holds the run.
 */
import { fetchKnobsManifest } from '../src/fetch/knobs-manifest.js';
import { networkManifest } from '../src/fetch/index.js';
import { catalogueManifest } from '../src/resolve/agents-catalogue.js';
import { version } from '../src/util/version.js';
import { resolveRunLockOptions } from '../src/store/run-lock.js';
import type { CrawlOptions } from './crawl-options.js';
import type { CrawlRun } from './crawl-run.js';
import type { RunManifest } from './run-state.js';
import { sellersManifest } from './sellers-rounds.js';

export function runManifest(run: CrawlRun): RunManifest {
  const { options, setup, fetchConfig, ctx } = run;
  return {
    run_id: setup.runId,
    snapshot_date: setup.snapshotDate,
    adsnap_version: version,
    node_version: process.version,
    inputs: { domains: options.domains, apps: options.apps ?? null, limit: options.limit ?? null },
    input_fingerprints: setup.inputs.fingerprints,
    // A list named by provider (--domains tranco:…): what it resolved to (src/sources/named-lists).
    named_list: options.namedList ?? null,
    // Every fetch knob as used, from defaults, --config FILE or flags (src/fetch/knobs-manifest.ts).
    fetch: { ...fetchKnobsManifest(fetchConfig), config_file: options.configFile ?? null },
    options: { concurrency: run.concurrency, obey_robots: ctx.options.obeyRobots, robots_semantics: ctx.options.robotsSemantics, user_agent: fetchConfig.userAgent, ...sellersManifest(options, null, run.sellersLocations.base).options, reuse_fresh: options.reuseFresh ?? false, ai_signals: options.aiSignals ?? false, compact: options.compact !== false, agents_catalogue: catalogueManifest(run.catalogue), lock: lockManifest(options) },
    // Resolvers asked and every exemption from the address guard (--dns-server, --allow-addresses; src/fetch/network-manifest.ts).
    network: networkManifest(fetchConfig),
    sellers_rounds: sellersManifest(options, run.state.sellersRounds ?? null).sellers_rounds,
    previous_snapshot: ctx.incremental ? ctx.incremental.previous.snapshotDate : null,
    shard: setup.shard ? { index: setup.shard.index, count: setup.shard.count, stage: setup.stage } : null,
    list: run.list,
    app_list: run.appList,
  };
}

/** The run lock's settings as the manifest records them. */
function lockManifest(options: CrawlOptions): { heartbeat_ms: number; stale_ms: number } {
  const { heartbeatMs, staleMs } = resolveRunLockOptions(options.lock);
  return { heartbeat_ms: heartbeatMs, stale_ms: staleMs };
}
