import v8 from 'node:v8';
import { crawl, type CrawlResult } from '../../../pipelines/crawl.js';
import { malformedLines } from '../../../pipelines/list-check.js';
import { RunStats } from '../../../pipelines/run-stats.js';
import type { Command } from '../command.js';
import { readCrawlFlags } from '../crawl-flags.js';
import { CRAWL_USAGE } from '../crawl-usage.js';
import { fmtBytes, fmtDuration, startProgress } from '../progress.js';
import { visibleLines } from '../../text/visible.js';
import { EXIT, exitStatusOf } from '../exit-codes.js';
import { failureText } from '../failure.js';
import { UsageError } from '../usage-error.js';
import { oneDuckDbArena } from '../../util/duckdb-size.js';
import { asCrawlChild, crawlInChild, crawlProcess } from '../crawl-process.js';

/**
 * Memory: a crawl's live heap is small (25–40 MB) but it allocates fast (TLS certificate checks,
 * body chunks), and V8 lets such a heap grow to 3–5× its live size before collecting. A slower
 * heap growth keeps peak RSS nearer the live set. At 50% (the setting until 2026-11-28) V8 ran a
 * full collection about once a second and its marking threads spent a fifth of the crawl's CPU;
 * at 100% a 100k-site crawl over HTTP took 21% less CPU, a 20k one over HTTPS (where the TLS
 * handshakes weigh most) 0–7% less, for ~50 MB more RSS while it fetches (docs/performance.md, "The body's compression on the caller's thread, and
 * the heap's growth"). Set before the crawl allocates anything. The Parquet worker keeps V8's
 * default young generation: capped at 4 MB it spent half its time collecting.
 *
 * Tried and not set: `--compact-on-every-full-gc`. V8 leaves old-space pages half full of
 * promoted request state, so committed old space is about twice the live heap. Compacting every
 * time holds it at the live size, but each compaction first takes new pages for everything it
 * moves, so peak RSS did not fall, and it cost ~9% CPU (docs/performance.md, history). A forced
 * collection before the commit: the heap was 71 MB of the process's 210 MB by then, and RSS did
 * not move.
 */
function tuneHeapForCrawling(): void {
  if (process.env.ADSNAP_NO_HEAP_TUNING) return;
  v8.setFlagsFromString('--heap-growing-percent=100');
}

export const command: Command = {
  summary: 'crawl domain and app lists into a Parquet snapshot',
  usage: CRAWL_USAGE,
  async run(argv) {
    oneDuckDbArena(); // before anything can load DuckDB
    let flags: Awaited<ReturnType<typeof readCrawlFlags>>;
    try {
      flags = await readCrawlFlags(argv);
    } catch (err) {
      // A usage error prints the usage (main.ts); a list provider down is said as a run's end is.
      if (err instanceof UsageError) throw err;
      return ended(err);
    }
    const { options, progress: show, notice } = flags;
    const role = crawlProcess(options);
    if (notice && role !== 'child') process.stderr.write(`${notice}\n`);
    let resumedCrawl: boolean | null = null;
    if (role === 'parent') {
      // The crawl in a child process; this one, which has crawled nothing, commits (crawl-process.ts).
      const crawled = await crawlInChild(argv, options);
      if (!crawled.sealed) return crawled.status;
      resumedCrawl = crawled.resumed;
    } else {
      tuneHeapForCrawling();
    }
    const child = role === 'child' ? asCrawlChild() : null;
    const controller = new AbortController();
    const onSignal = (sig: NodeJS.Signals) => {
      process.stderr.write(`\nadsnap crawl: ${sig}: stopping; no partial snapshot will be left\n`);
      controller.abort(new Error(`interrupted by ${sig}`));
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);

    const stats = new RunStats();
    const progress = startProgress(stats, { mode: show.mode, intervalMs: show.mode === 'json' ? show.intervalMs : undefined });
    try {
      const result = await crawl({ ...options, ...child?.handed, signal: controller.signal, stats, untilSealed: child !== null });
      progress.stop();
      if (await child?.sealed(result)) return EXIT.done;
      if (resumedCrawl !== null) result.resumed = resumedCrawl;
      process.stdout.write(summaryLines(result, options.outDir).join('\n') + '\n');
      if (!result.alreadyComplete) reportMalformed(result);
      return EXIT.done;
    } catch (err) {
      progress.stop();
      return ended(err);
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
  },
};

/** One line on stderr saying how the run ended and what to do (the stack trace only with --debug); the exit status. */
function ended(err: unknown): number {
  const status = exitStatusOf(err);
  const what = status === EXIT.tempFail ? 'not now (exit 75: run the same command again later)' : status === EXIT.usage ? 'refused (exit 2)' : 'run failed';
  process.stderr.write(`adsnap crawl: ${what}: ${visibleLines(failureText(err))}\n`);
  return status;
}

/** What a finished run prints on stdout: what was written, or that the run was already complete. */
function summaryLines(result: CrawlResult, outDir: string): string[] {
  if (result.alreadyComplete) return [`snapshot ${result.snapshotDate} run ${result.runId} is already complete (${result.manifestPath}); nothing to do`];
  const s = result.stats.snapshot();
  const lines = [
    `snapshot ${result.snapshotDate} written to ${outDir} (run ${result.runId}${result.resumed ? ', resumed from a checkpoint' : ''}) in ${fmtDuration(s.elapsed_s)}`,
    `  targets ${s.targets_done}, apps ${s.apps_done}, partners ${s.partners_done}, sellers.json ${s.sellers_done}${s.sellers_round ? ` (rounds to ${s.sellers_round})` : ''}; ${s.requests} requests, ${fmtBytes(s.bytes)}`,
  ];
  if (result.list) lines.push(`  list: ${result.list.accepted} accepted, ${result.list.duplicates} duplicates, ${result.list.malformed} malformed of ${result.list.lines} lines`);
  for (const [table, t] of Object.entries(result.tables)) lines.push(`  ${table.padEnd(16)} ${t.rows} rows`);
  lines.push(`  manifest: ${result.manifestPath}`);
  return lines;
}

/** The first malformed lines of each list on stderr, with the manifest that keeps more of them and their count by reason. */
function reportMalformed(result: CrawlResult): void {
  for (const [name, list] of [['domain', result.list], ['app', result.appList]] as const) {
    if (!list || list.malformed === 0) continue;
    process.stderr.write(visibleLines(`adsnap crawl: ${list.malformed} malformed line${list.malformed > 1 ? 's' : ''} in the ${name} list (skipped):${malformedLines(list)}\n  the first ${list.malformedSamples.length} with their reasons are in ${result.manifestPath} (${name === 'domain' ? 'list' : 'app_list'}.malformedSamples)\n`));
  }
}
