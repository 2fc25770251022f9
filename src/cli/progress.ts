import type { RunStats } from '../../pipelines/run-stats.js';
import { visible } from '../text/visible.js';

/**
 * Shows a run as it goes (docs/guide/nightly.md#seeing-the-run): on a TTY, one status line redrawn in place
 * (done/total, rate, ETA, bytes, errors by class, hop queue); otherwise one JSON object per line
 * at a steady cadence, for log collectors (Kubernetes, cron mail).
 */
export interface ProgressOptions {
  mode: 'tty' | 'json' | 'none';
  /** How often to report. @default 1000 ms on a TTY, 10000 ms as JSON */
  intervalMs?: number;
  stream?: NodeJS.WriteStream;
}

export function startProgress(stats: RunStats, options: ProgressOptions): { stop(): void } {
  if (options.mode === 'none') return { stop() {} };
  const stream = options.stream ?? process.stderr;
  const intervalMs = options.intervalMs ?? (options.mode === 'tty' ? 1000 : 10_000);
  const tick = () => {
    const s = stats.snapshot();
    if (options.mode === 'json') {
      stream.write(JSON.stringify({ level: 'info', msg: 'progress', ts: new Date().toISOString(), ...s }) + '\n');
    } else {
      stream.write(`\r\x1b[2K${formatLine(s)}`);
    }
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      if (options.mode === 'tty') stream.write('\r\x1b[2K');
    },
  };
}

export function formatLine(s: ReturnType<RunStats['snapshot']>): string {
  const total = s.targets_total ?? null;
  const done = total ? `${s.targets_done}/${total}` : `${s.targets_done}`;
  const eta = total && s.rate_per_s > 0 ? ` ETA ${fmtDuration((total - s.targets_done) / s.rate_per_s)}` : '';
  const errors = Object.entries(s.fetch_errors)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  // Bot walls, 429s and the holds they set: shown only once there is any.
  const walls = s.walls || s.rate_limited ? ` · walls ${s.walls} · 429 ${s.rate_limited} · held ${s.backoffs.hosts} hosts/${s.backoffs.ips} ips` : '';
  // Error classes are adsnap's codes; shown through visible() all the same, as every line a terminal draws (text/visible.ts).
  return visible(`[${s.phase}] ${done} targets, ${s.rate_per_s}/s${eta} · ${s.requests} req · ${fmtBytes(s.bytes)} · queue ${s.queued}${walls}${errors ? ' · ' + errors : ''}`);
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export function fmtDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}
