/**
 * The run's clock: what a crawl records as the time (fetches.started_at, files.fetched_at) and
 * decides freshness by (src/resolve/freshness.ts). It is the real time, shifted when the crawl is
 * given another "now" (`--now`: tests, benchmarks and backfills simulate another night), read
 * where a time is needed and never patched onto rows afterwards. Waits and time-outs run on the
 * real clock, whatever the shift.
 */
export interface Clock {
  /** Milliseconds since the epoch, on the run's clock. */
  now(): number;
}

export const realClock: Clock = { now: () => Date.now() };

/** A clock that reads `at` now and runs on from there with the real time; the real clock without `at`. */
export function clockFrom(at: Date | undefined, real: Clock = realClock): Clock {
  if (at === undefined) return real;
  const offset = at.getTime() - real.now();
  return { now: () => real.now() + offset };
}
