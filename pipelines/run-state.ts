/**
 * What a checkpoint saves (`state.json` in the run's staging folder, run-journal.ts): its type,
 * and the shape it is checked against when it is read back, declared once here. Everything a
 * resumed attempt takes from it (the registries, the counters, the commit's plan and manifest) is
 * typed by these shapes, so a change of shape is a compile error here, not a crash on resume.
 *
 * `RUN_STATE_VERSION` is the format's number: a change that an earlier adsnap could not read
 * back raises it, and a state of any other version stops the run with `RUN_STATE_VERSION`.
 */
import { tableNames } from '../schemas/tables.js';
import { FILE_STATUSES } from '../schemas/tables.js';
import type { PlannedPart, StagedPart } from '../src/sink/index.js';
import { MALFORMED_REASONS } from '../src/sources/domain-normalise.js';
import type { ListStats } from '../src/sources/domain-list.js';
import type { AppListStats } from '../src/sources/apps.js';
import { isCalendarDate } from '../src/util/calendar-date.js';
import { array, bool, count, literal, matching, nullable, num, object, oneOf, optional, pair, record, str, where, type Shape, type ShapeOf } from '../src/util/shape.js';
import { PHASES, WORK_PHASES, type Phase, type WorkPhase } from './phases.js';
import type { DoneSet } from './pool.js';
import { STAGES } from './shard-exchange.js';

export const RUN_STATE_VERSION = 2;

const strings = array(str);
const counts = record(str, count);
// Staged files are plain names inside the staging directory, never paths.
const plainName = matching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/, 'a plain file name');
const table = oneOf(tableNames);

const doneSet: Shape<DoneSet> = where(object({ prefix: count, extra: array(count) }), (d) => d.extra.every((i) => i > d.prefix), 'names an extra item inside its prefix');

const stagedPart: Shape<StagedPart> = object({ table, file: plainName, rows: count, bytes: count });

const plannedPart: Shape<PlannedPart> = where(
  object({ table, staged: plainName, final: str, rows: count, bytes: count }),
  (p) => new RegExp(`^${p.table}/snapshot_date=\\d{4}-\\d{2}-\\d{2}/part-\\d+\\.parquet$`).test(p.final),
  "has a final path outside its table's folder",
);

/** A list's bytes as read: the whole file, or (stdin) what was read by the last checkpoint. */
const inputFingerprint = object({
  sha256: matching(/^[0-9a-f]{64}$/, 'a sha256 in hex'),
  bytes: count,
  /** The whole input (a file hashed before the crawl, or stdin read to its end). */
  complete: bool,
});
export type InputFingerprint = ShapeOf<typeof inputFingerprint>;

/**
 * The rounds of the sellers phase (src/resolve/intermediaries.ts): round 0 is the ad systems'
 * sellers.json, round k those named by INTERMEDIARY/BOTH entries of round k−1 files. Each round's
 * list is fixed when it starts (`sellersList`) and its done set is `done.sellers`, so a resumed
 * run goes on inside the round it was in; what earlier rounds fetched is kept here, so no file is
 * fetched twice in a night.
 */
const sellersRounds = object({
  /** The round `sellersList` belongs to. */
  round: count,
  /** Domains whose sellers.json an earlier round of this night asked for. */
  fetched: strings,
  /** Files asked per finished round, in round order (a sharded `intermediaries` stage starts at round 1). */
  files: array(object({ round: count, files: count })),
  /** When the bound on intermediary files per night cut a round: which, and how many it left out. */
  limitReached: nullable(object({ round: count, notFetched: count })),
});
export type SellersRounds = ShapeOf<typeof sellersRounds>;

/**
 * What the crawl learnt (referral-registry.ts), as a checkpoint keeps it and as a shard tells the
 * others (shard-exchange.ts). Store hosts and intermediaries are absent in states and reports
 * written before they existed.
 */
export const registryShape = object({
  partners: strings,
  adSystems: strings,
  claimed: strings,
  robotsClaimed: strings,
  storeHosts: optional(strings),
  intermediaries: optional(strings),
});
export type RegistryState = ShapeOf<typeof registryShape>;

/** The developer hosts whose app-ads.txt was read (app-job.ts), with what was found there. */
const appsShape = object({ devHosts: array(pair(str, object({ status: oneOf(FILE_STATUSES), found: bool }))) });
export type AppsState = ShapeOf<typeof appsShape>;

/** The run's counters carried across attempts (run-stats.ts); the back-off counters are absent in older states. */
const statsShape = object({
  targetsDone: count,
  appsDone: count,
  partnersDone: count,
  sellersDone: count,
  requests: count,
  bytes: count,
  fetchErrors: counts,
  fileStatus: counts,
  walls: optional(count),
  rateLimited: optional(count),
  backoffs: optional(object({ hosts: count, ips: count })),
  backoffCauses: optional(counts),
  elapsedMs: num,
});
export type StatsState = ShapeOf<typeof statsShape>;

const malformedSample = object({ lineNo: count, text: str, reason: str });
const listStats: Shape<ListStats> = object({
  lines: count,
  accepted: count,
  duplicates: count,
  malformed: count,
  malformedSamples: array(malformedSample),
  malformedByReason: record(oneOf(MALFORMED_REASONS), count),
  skippedHeader: bool,
  ignored: count,
  layout: oneOf(['text', 'rank_domain', 'csv_header', 'csv', 'unknown']),
  stoppedAtLimit: bool,
  complete: bool,
});
const appListStats: Shape<AppListStats> = object({ lines: count, accepted: count, duplicates: count, malformed: count, malformedSamples: array(malformedSample), format: nullable(oneOf(['text', 'csv'])) });

/**
 * What the run manifest will say, saved before the commit so that a resumed commit writes the
 * same (step-commit.ts). The fields the commit reads are checked; the rest is written as it is.
 */
const manifestShape = object({
  run_id: str,
  snapshot_date: where(str, isCalendarDate, 'is not a calendar date'),
  list: nullable(listStats),
  app_list: optional(nullable(appListStats)),
  /** A sharded run's shard and stage (absent in a checkpoint written before the field was checked). */
  shard: optional(nullable(object({ index: count, count, stage: oneOf(['all', ...STAGES] as const) }))),
  /** The crawling process's CPU and peak memory, when the commit runs in another (src/cli/crawl-process.ts). */
  crawl_process: optional(object({ cpu_user_s: num, cpu_system_s: num, max_rss_mb: num })),
});
export type RunManifest = ShapeOf<typeof manifestShape> & Record<string, unknown>;

const shardReportShape = object({ stage: oneOf(STAGES), report: registryShape });

const doneSets = object(Object.fromEntries(WORK_PHASES.map((p) => [p, doneSet])) as Record<WorkPhase, Shape<DoneSet>>);

const runStateShape = object({
  version: literal(RUN_STATE_VERSION),
  runId: str,
  attempt: where(count, (n) => n >= 1, 'is not an attempt number (1 or more)'),
  phase: oneOf(PHASES),
  /** Items of each work phase's (deterministic) input that are complete. */
  done: doneSets,
  /** Inputs of the referral phases, fixed when the phase starts. */
  partnerList: nullable(strings),
  /** partnerList holds only the partners the listed-sites step crawled (step-partners.ts earlyPartners); the partner phase adds the rest. */
  partnersEarly: optional(bool),
  sellersList: nullable(strings),
  /** Absent in a checkpoint written before the rounds existed (it is round 0). */
  sellersRounds: optional(sellersRounds),
  referrals: nullable(registryShape),
  apps: nullable(appsShape),
  stats: nullable(statsShape),
  staged: array(stagedPart),
  /** Sharded runs: length of this shard's pending-apps file at the checkpoint. */
  pendingAppsBytes: count,
  inputs: object({ domains: nullable(inputFingerprint), apps: nullable(inputFingerprint) }),
  /** The commit's plan, once the parts are compacted (phase 'commit'). */
  commit: nullable(array(plannedPart)),
  /** What the manifest will say (phases 'compact' and 'commit'), so that a resumed commit writes the same. */
  manifest: nullable(manifestShape),
  /** Sharded runs: what this shard tells the others once the stage is committed. */
  shardReport: nullable(shardReportShape),
});

type Checked = ShapeOf<typeof runStateShape>;
/** A checkpoint; `manifest` keeps the fields the shape does not name. */
export type RunState = Omit<Checked, 'manifest'> & { phase: Phase; manifest: RunManifest | null };
/** A checkpoint in phase 'compact' or 'commit': the manifest is there, and in 'commit' the plan. */
export type CommitState = RunState & { manifest: RunManifest };

/** Whether a state is in phase 'compact' or 'commit' (the shape saw to its manifest being there). */
export function inCommit(s: RunState): s is CommitState {
  return (s.phase === 'compact' || s.phase === 'commit') && s.manifest !== null;
}

/** Checks a parsed `state.json`; throws ShapeError naming the first field that is wrong. */
export const runState: Shape<RunState> = where(
  where(runStateShape, (s) => (s.phase !== 'compact' && s.phase !== 'commit') || s.manifest !== null, 'is in a commit phase without a manifest'),
  (s) => s.phase !== 'commit' || s.commit !== null,
  'is in the commit phase without a plan',
);
