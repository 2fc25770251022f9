/**
 * `adsnap verify ROOT… --requests FILE|- [--night DATE|latest] [--format jsonl|csv|parquet] [--out FILE]`:
 * was each bid request authorized on the night it was made? The verdict of the IAB Tech Lab
 * Supply Chain Validation guidance §3.5 and its §4.6 SupplyChain checks, judged by DuckDB against
 * one night of the roots (src/verify/).
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { VerifySummary } from '../../verify/run.js';
import { VERIFY_FORMATS, type VerifyFormat } from '../../verify/formats.js';
import { oneDuckDbArena } from '../../util/duckdb-size.js';
import { isCalendarDate } from '../../util/calendar-date.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { checkCompleteSnapshotRoots } from '../snapshot-roots.js';
import { visibleLines } from '../../text/visible.js';
import { exitStatusOf } from '../exit-codes.js';

const usage = `Usage: adsnap verify ROOT… --requests FILE|- [--night YYYY-MM-DD|latest] [--format jsonl|csv|parquet] [--out FILE]

Verifies bid requests against one night of snapshots: for each line of FILE (JSON Lines, one
OpenRTB 2.x BidRequest per line; - reads stdin), the authorization verdict of the IAB Tech Lab
Supply Chain Validation guidance §3.5 (authorized, unauthorized, nonparticipating, inconclusive,
or not_in_snapshot when the night did not crawl the site or app) with a reason code, the file that
decided it, the matched record's relationship and whether the seller id matched exactly or
case-folded; and the guidance's §4.6 SupplyChain checks (schain_valid, schain_issues, each node
against its sellers.json). Fields read: id, site.domain, site.publisher.id,
site.inventorypartnerdomain, app.bundle, app.storeurl, app.publisher.id, app.inventorypartnerdomain,
the SupplyChain at source.schain, source.ext.schain or ext.schain, and ad_system (the ad system
that sent the request; default: the last SupplyChain node's asi). The seller id is publisher.id,
else the last node's sid. One output row per input line, in input order, with its line number; a
line that is not a JSON object, or has neither site nor app, is a row with an error code. A
summary (verdicts, errors) goes to stderr. Guide: docs/guide/verify.md.

With one ROOT, the night's lookups (its files, records, partners, sellers.json entries and apps,
built from its tables) are kept with it, in ROOT/_derived/_verify, and the next run against that
night reuses them; a night crawled again or a new adsnap builds them again. A ROOT that cannot be
written to is read as before.

  --requests FILE|-    the bid requests, JSON Lines (- for stdin)
  --night DATE|latest  the night to verify against (default: the latest the ROOTs hold)
  --format FORMAT      jsonl (default), csv (a header row; lists as DuckDB writes them) or
                       parquet (needs --out)
  --out FILE           where to write (replaced whole when done); default stdout

Exit status: 0 done (bad lines are rows, not failures); 1 a query failed; 2 bad usage: a ROOT
without a complete run, a --night the ROOTs do not hold, a missing FILE, an --out in a missing
directory (nothing written). --out is replaced whole once written: never seen half-written.
SIGTERM or SIGINT stops a run: exit 1, its temporary files removed, --out as it was.

Example:
  adsnap verify out --requests bids.jsonl --out verdicts.jsonl`;

export const command: Command = {
  summary: 'verify bid requests (OpenRTB JSON Lines) against a night: IAB authorization verdict and SupplyChain checks',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      requests: { type: 'string' },
      night: { type: 'string' },
      format: { type: 'string' },
      out: { type: 'string', short: 'o' },
    });
    if (positionals.length === 0) throw new UsageError('name at least one snapshot ROOT');
    checkCompleteSnapshotRoots(positionals);
    if (values.requests === undefined) throw new UsageError('--requests FILE|- is required');
    if (values.requests !== '-' && !isFile(values.requests)) throw new UsageError(`--requests ${values.requests}: no such file`);
    const format = (values.format ?? 'jsonl') as VerifyFormat;
    if (!VERIFY_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${VERIFY_FORMATS.join(', ')}, got ${JSON.stringify(values.format)}`);
    if (format === 'parquet' && values.out === undefined) throw new UsageError('--format parquet needs --out FILE');
    if (values.night !== undefined && values.night !== 'latest' && !isCalendarDate(values.night)) throw new UsageError(`--night must be YYYY-MM-DD or latest, got '${values.night}'`);
    if (values.out !== undefined && isDirectoryPath(values.out)) throw new UsageError(`--out ${values.out} is a directory, not a file`);
    // Checked before the run, not found after it: the output is written last, beside its final name.
    if (values.out !== undefined && !isDirectoryPath(path.dirname(path.resolve(values.out)))) throw new UsageError(`--out ${values.out}: no such directory`);
    let summary: VerifySummary;
    const t0 = performance.now();
    // One allocator arena, set before DuckDB's library loads (with run.js): its two batches at
    // once then reuse each other's freed pages. 1M requests: peak RSS 852–906 → 746 MB, and
    // 8.7–9.0 → 8.3–8.5 s (docs/performance.md#verify).
    oneDuckDbArena();
    const { runVerify } = await import('../../verify/run.js');
    // SIGTERM or SIGINT: the run stops, its temporary files are removed and --out is left as it was (exit 1).
    const controller = new AbortController();
    const onSignal = (sig: NodeJS.Signals) => controller.abort(new Error(`stopped by ${sig}; nothing written`));
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    try {
      summary = await runVerify({
        roots: positionals, requests: values.requests, night: values.night, format, out: values.out ?? null, signal: controller.signal,
        onMemoryRetry: (next, err) => process.stderr.write(`adsnap verify: the night's lookups: ${visibleLines(err.message.split('\n')[0]!)}; again with memory_limit ${next}\n`),
      });
    } catch (err) {
      process.stderr.write(`adsnap verify: ${visibleLines((err as Error).message)}\n`);
      return exitStatusOf(err);
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    const ru = process.resourceUsage();
    const took = `${((performance.now() - t0) / 1000).toFixed(1)} s (CPU ${((ru.userCPUTime + ru.systemCPUTime) / 1e6).toFixed(1)} s), peak RSS ${Math.round(ru.maxRSS / 1024)} MB`;
    process.stderr.write(`${summaryText(summary)}; in ${took}\n`);
    return 0;
  },
};

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile() || !statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isDirectoryPath(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}

const LOOKUPS: Record<VerifySummary['lookups'], string> = { kept: 'built and kept with the night', reused: 'kept with the night, reused', private: 'built for this run' };

function summaryText(s: VerifySummary): string {
  const part = (counts: Record<string, number>) => Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  const errors = Object.values(s.errors).reduce((a, b) => a + b, 0);
  return `adsnap verify: ${s.lines} lines against ${s.night}: ${part(s.verdicts)}; ${errors} bad lines${errors ? ` (${part(s.errors)})` : ''}; SupplyChain valid ${s.schain.valid}, invalid ${s.schain.invalid}, unknown ${s.schain.unknown}, absent ${s.schain.absent}; lookups ${LOOKUPS[s.lookups]}`;
}
