import { describe, expect, it, vi } from 'vitest';
import { RunStats } from '../pipelines/run-stats.js';
import { fmtBytes, fmtDuration, formatLine, startProgress } from '../src/cli/progress.js';

function fakeStream() {
  const chunks: string[] = [];
  return { chunks, stream: { write: (s: string) => chunks.push(s) } as unknown as NodeJS.WriteStream };
}

describe('progress reporting', () => {
  it('a TTY line shows done/total, rate, ETA, bytes, hop queue and top error classes', () => {
    const line = formatLine({ phase: 'domains', elapsed_s: 10, targets_done: 500, targets_total: 10000, apps_done: 0, partners_done: 0, sellers_done: 0, sellers_round: null, queued: 3, requests: 1200, bytes: 3456789, rate_per_s: 50, fetch_errors: { tls: 1, dns: 3 }, file_status: {}, checkpoints: { count: 0, max_pause_ms: 0, max_duration_ms: 0 }, walls: 0, rate_limited: 0, backoffs: { hosts: 0, ips: 0, causes: {} } });
    expect(line).toBe('[domains] 500/10000 targets, 50/s ETA 3m10s · 1200 req · 3.3 MiB · queue 3 · dns:3 tls:1');
    expect(fmtBytes(512)).toBe('512 B');
    expect(fmtDuration(3725)).toBe('1h02m');
  });

  it('bot walls, 429s and the holds they set are counted from the fetch rows and shown on the line', () => {
    const stats = new RunStats();
    // What the run's Fetcher counts into its sink (FetchCounters) as chains end and holds are set.
    const row = (status_code: number, error: string | null) => ({ url: 'https://a.example/ads.txt', status_code, error, bytes: 0 }) as Parameters<RunStats['fetch']['chain']>[0];
    stats.fetch.chain(row(403, 'challenge'));
    stats.fetch.chain(row(503, 'challenge'));
    stats.fetch.chain(row(429, null));
    stats.fetch.chain(row(403, null));
    stats.fetch.backoff('host', 'challenge:cloudflare');
    stats.fetch.backoff('ip', 'challenge:cloudflare');
    stats.fetch.backoff('host', '429');
    const s = stats.snapshot();
    expect([s.walls, s.rate_limited]).toEqual([2, 1]);
    expect(s.backoffs).toEqual({ hosts: 2, ips: 1, causes: { 'challenge:cloudflare': 1, '429': 1 } });
    expect(formatLine(s)).toContain(' · walls 2 · 429 1 · held 2 hosts/1 ips');
    // Carried across a resumed run's attempts, like the other counters.
    const again = new RunStats();
    again.restore(JSON.parse(JSON.stringify(stats.toJSON())));
    expect(again.snapshot().backoffs).toEqual(s.backoffs);
    expect(again.snapshot().walls).toBe(2);
  });

  it('without a TTY: one JSON object per line at a steady cadence', () => {
    vi.useFakeTimers();
    try {
      const stats = new RunStats();
      stats.targetsDone = 7;
      stats.fetch.errors.timeout = 2;
      const { chunks, stream } = fakeStream();
      const p = startProgress(stats, { mode: 'json', intervalMs: 1000, stream });
      vi.advanceTimersByTime(3500);
      p.stop();
      vi.advanceTimersByTime(5000);
      expect(chunks).toHaveLength(3);
      const obj = JSON.parse(chunks[0]!);
      expect(obj).toMatchObject({ level: 'info', msg: 'progress', targets_done: 7, fetch_errors: { timeout: 2 } });
    } finally {
      vi.useRealTimers();
    }
  });
});
