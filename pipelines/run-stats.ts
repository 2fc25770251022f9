import type { Row } from '../schemas/tables.js';
import type { StatsState } from './run-state.js';
import { progressPhase, type Phase, type ProgressPhase } from './phases.js';
import { FetchCounters } from '../src/fetch/index.js';

/**
 * Counters of a run: what the progress display, the JSON log lines and the run manifest report.
 * The fetch events (requests, bytes, errors, walls, 429s, holds) are the fetch stack's own sink,
 * `fetch`, which the run's Fetcher counts into as they happen: one set of counters for all readers.
 */
export class RunStats {
  startedAt = Date.now();
  targetsTotal: number | null = null;
  targetsDone = 0;
  appsDone = 0;
  partnersDone = 0;
  sellersDone = 0;
  /** The run's Fetcher counts here (crawl-run.ts hands it over). */
  readonly fetch = new FetchCounters();
  readonly fileStatus: Record<string, number> = {};
  readonly rows: Record<string, number> = {};
  /** Referral targets waiting (partners, sellers.json) — the "hop queue". */
  queued = 0;
  /** Set by the runner from the plan (phases.ts), never by a step. */
  phase: ProgressPhase = 'starting';
  /** The sellers phase's round (0: ad systems; k: intermediaries k links away), null before it. */
  sellersRound: number | null = null;
  /** Checkpoints taken, the longest time one held the event loop (its synchronous capture), and the longest until saved. */
  readonly checkpoints = { count: 0, maxPauseMs: 0, maxDurationMs: 0 };

  /** The run is now in `phase` (the progress line's name for it: phases.ts). */
  enter(phase: Phase): void {
    this.phase = progressPhase(phase);
  }

  /** The snapshot is published (or was already). */
  finished(): void {
    this.phase = 'done';
  }

  countCheckpoint(pauseMs: number, durationMs: number): void {
    this.checkpoints.count++;
    this.checkpoints.maxPauseMs = Math.max(this.checkpoints.maxPauseMs, pauseMs);
    this.checkpoints.maxDurationMs = Math.max(this.checkpoints.maxDurationMs, durationMs);
  }

  countFile(fileKind: string, status: string): void {
    const k = `${fileKind}:${status}`;
    this.fileStatus[k] = (this.fileStatus[k] ?? 0) + 1;
  }

  /** Counters carried across a resumed run's attempts. */
  toJSON() {
    const { targetsDone, appsDone, partnersDone, sellersDone, fileStatus } = this;
    const { chains: requests, bytes, errors: fetchErrors, walls, rateLimited, backoffs, backoffCauses } = this.fetch;
    return { targetsDone, appsDone, partnersDone, sellersDone, requests, bytes, fetchErrors, fileStatus, walls, rateLimited, backoffs, backoffCauses, elapsedMs: Date.now() - this.startedAt };
  }

  restore(s: StatsState): void {
    this.targetsDone = s.targetsDone;
    this.appsDone = s.appsDone;
    this.partnersDone = s.partnersDone;
    this.sellersDone = s.sellersDone;
    const f = this.fetch;
    f.chains = s.requests;
    f.bytes = s.bytes;
    Object.assign(f.errors, s.fetchErrors);
    Object.assign(this.fileStatus, s.fileStatus);
    // Checkpoints written by older versions carry no back-off counters.
    f.walls = s.walls ?? 0;
    f.rateLimited = s.rateLimited ?? 0;
    Object.assign(f.backoffs, s.backoffs ?? {});
    Object.assign(f.backoffCauses, s.backoffCauses ?? {});
    this.startedAt -= s.elapsedMs;
  }

  snapshot() {
    const elapsedS = (Date.now() - this.startedAt) / 1000;
    const f = this.fetch;
    return {
      phase: this.phase,
      elapsed_s: Math.round(elapsedS * 10) / 10,
      targets_done: this.targetsDone,
      targets_total: this.targetsTotal,
      apps_done: this.appsDone,
      partners_done: this.partnersDone,
      sellers_done: this.sellersDone,
      sellers_round: this.sellersRound,
      queued: this.queued,
      requests: f.chains,
      bytes: f.bytes,
      rate_per_s: elapsedS > 0 ? Math.round((this.targetsDone / elapsedS) * 10) / 10 : 0,
      fetch_errors: { ...f.errors },
      file_status: { ...this.fileStatus },
      walls: f.walls,
      rate_limited: f.rateLimited,
      backoffs: { hosts: f.backoffs.hosts, ips: f.backoffs.ips, causes: { ...f.backoffCauses } },
      checkpoints: { count: this.checkpoints.count, max_pause_ms: round1(this.checkpoints.maxPauseMs), max_duration_ms: Math.round(this.checkpoints.maxDurationMs) },
    };
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
