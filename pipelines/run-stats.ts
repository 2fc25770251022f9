import type { Row } from '../schemas/tables.js';
import type { StatsState } from './run-state.js';
import { progressPhase, type Phase, type ProgressPhase } from './phases.js';

/** Counters of a run: what the progress display, the JSON log lines and the run manifest report. */
export class RunStats {
  startedAt = Date.now();
  targetsTotal: number | null = null;
  targetsDone = 0;
  appsDone = 0;
  partnersDone = 0;
  sellersDone = 0;
  requests = 0;
  bytes = 0;
  readonly fetchErrors: Record<string, number> = {};
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
  /** Answers that were a bot wall (fetches.error 'challenge') and 429 answers. */
  walls = 0;
  rateLimited = 0;
  /** Holds set on hosts and on addresses (src/fetch/politeness.ts), and the causes of the host holds (`429`, `503`, `challenge:<vendor>`). */
  readonly backoffs = { hosts: 0, ips: 0 };
  readonly backoffCauses: Record<string, number> = {};

  /** The run is now in `phase` (the progress line's name for it: phases.ts). */
  enter(phase: Phase): void {
    this.phase = progressPhase(phase);
  }

  /** The snapshot is published (or was already). */
  finished(): void {
    this.phase = 'done';
  }

  countBackoff(scope: 'host' | 'ip', cause: string): void {
    if (scope === 'ip') return void this.backoffs.ips++;
    this.backoffs.hosts++;
    this.backoffCauses[cause] = (this.backoffCauses[cause] ?? 0) + 1;
  }

  countCheckpoint(pauseMs: number, durationMs: number): void {
    this.checkpoints.count++;
    this.checkpoints.maxPauseMs = Math.max(this.checkpoints.maxPauseMs, pauseMs);
    this.checkpoints.maxDurationMs = Math.max(this.checkpoints.maxDurationMs, durationMs);
  }

  countFetch(r: Row<'fetches'>): void {
    this.requests++;
    if (typeof r.bytes === 'number') this.bytes += r.bytes;
    if (r.error) this.fetchErrors[r.error] = (this.fetchErrors[r.error] ?? 0) + 1;
    if (r.error === 'challenge') this.walls++;
    else if (r.status_code === 429) this.rateLimited++;
  }

  countFile(fileKind: string, status: string): void {
    const k = `${fileKind}:${status}`;
    this.fileStatus[k] = (this.fileStatus[k] ?? 0) + 1;
  }

  /** Counters carried across a resumed run's attempts. */
  toJSON() {
    const { targetsDone, appsDone, partnersDone, sellersDone, requests, bytes, fetchErrors, fileStatus, walls, rateLimited, backoffs, backoffCauses } = this;
    return { targetsDone, appsDone, partnersDone, sellersDone, requests, bytes, fetchErrors, fileStatus, walls, rateLimited, backoffs, backoffCauses, elapsedMs: Date.now() - this.startedAt };
  }

  restore(s: StatsState): void {
    this.targetsDone = s.targetsDone;
    this.appsDone = s.appsDone;
    this.partnersDone = s.partnersDone;
    this.sellersDone = s.sellersDone;
    this.requests = s.requests;
    this.bytes = s.bytes;
    Object.assign(this.fetchErrors, s.fetchErrors);
    Object.assign(this.fileStatus, s.fileStatus);
    // Checkpoints written by older versions carry no back-off counters.
    this.walls = s.walls ?? 0;
    this.rateLimited = s.rateLimited ?? 0;
    Object.assign(this.backoffs, s.backoffs ?? {});
    Object.assign(this.backoffCauses, s.backoffCauses ?? {});
    this.startedAt -= s.elapsedMs;
  }

  snapshot() {
    const elapsedS = (Date.now() - this.startedAt) / 1000;
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
      requests: this.requests,
      bytes: this.bytes,
      rate_per_s: elapsedS > 0 ? Math.round((this.targetsDone / elapsedS) * 10) / 10 : 0,
      fetch_errors: { ...this.fetchErrors },
      file_status: { ...this.fileStatus },
      walls: this.walls,
      rate_limited: this.rateLimited,
      backoffs: { hosts: this.backoffs.hosts, ips: this.backoffs.ips, causes: { ...this.backoffCauses } },
      checkpoints: { count: this.checkpoints.count, max_pause_ms: round1(this.checkpoints.maxPauseMs), max_duration_ms: Math.round(this.checkpoints.maxDurationMs) },
    };
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
