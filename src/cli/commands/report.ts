/**
 * `adsnap report ROOT… --out DIR [--from DATE] [--to DATE] [--rank-buckets N,N,…]`: the research
 * report of a snapshot series (src/report/).
 */
import path from 'node:path';
import { isCalendarDate } from '../../util/calendar-date.js';
import { buildReport, DEFAULT_RANK_BUCKETS } from '../../report/index.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import { visibleLines } from '../../text/visible.js';
import { UsageError } from '../usage-error.js';
import { checkOutDir } from '../out-dir.js';
import { exitStatusOf } from '../exit-codes.js';
import { failureText } from '../failure.js';
import { checkSnapshotRoots } from '../snapshot-roots.js';

const usage = `Usage: adsnap report ROOT… --out DIR [--from DATE] [--to DATE] [--rank-buckets ${DEFAULT_RANK_BUCKETS.join(',')}]

Writes the report of a snapshot series: DIR/index.html (one page that opens offline: charts as
inline SVG, no script, nothing fetched; it prints and reads on a phone), DIR/report.json (every
figure's rows by a stable key, with its SQL and the setup statements to run it again with
\`adsnap sql\`) and DIR/<figure key>.csv. Sections: adoption by rank bucket and store, ads.txt
variables, ad systems, supply-chain consistency against sellers.json, pooled seller ids,
robots.txt and AI crawlers, changes between nights, sellers.json, data quality.

  --out DIR            where to write (created if needed; files of an earlier report replaced;
                       a file there is a usage error)
  --from, --to DATE    the first and last snapshot date (YYYY-MM-DD) to report; default: all
  --rank-buckets LIST  upper ranks of the buckets, ascending (default ${DEFAULT_RANK_BUCKETS.join(',')}):
                       sites ranked 1–1k, 1k–10k, …, beyond the last, and unranked

Exit status: 0 written (a ROOT whose first run has not completed gives a page that says so); 1 a
query failed; 2 bad usage, nothing written: a ROOT that is no snapshot root (missing, a file, an
empty or unrelated directory) or --out naming a file.

Example:
  adsnap report out --out report && open report/index.html`;

export const command: Command = {
  summary: 'write the research report of a snapshot series: one HTML page, report.json, CSVs',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      out: { type: 'string', short: 'o' },
      from: { type: 'string' },
      to: { type: 'string' },
      'rank-buckets': { type: 'string' },
    });
    if (positionals.length === 0) throw new UsageError('name at least one snapshot ROOT');
    if (!values.out) throw new UsageError('--out DIR is required');
    await checkOutDir(values.out);
    for (const flag of ['from', 'to'] as const) {
      const v = values[flag];
      if (v !== undefined && !isCalendarDate(v)) throw new UsageError(`--${flag} must be a calendar date YYYY-MM-DD, got '${v}'`);
    }
    if (values.from && values.to && values.from > values.to) throw new UsageError(`--from ${values.from} is after --to ${values.to}`);
    const rankBuckets = values['rank-buckets'] === undefined ? undefined : parseBuckets(values['rank-buckets']);
    // No snapshot root: exit 2 before --out is made. A root whose first night has not completed gives a page that says so.
    checkSnapshotRoots(positionals);
    const t0 = performance.now();
    let r;
    try {
      r = await buildReport({ roots: positionals, outDir: values.out, from: values.from ?? null, to: values.to ?? null, rankBuckets });
    } catch (err) {
      process.stderr.write(`adsnap report: ${visibleLines(failureText(err))}\n`);
      return exitStatusOf(err);
    }
    const nights = r.nights.length === 0 ? 'no night' : r.nights.length === 1 ? `1 night (${r.nights[0]})` : `${r.nights.length} nights (${r.nights[0]} to ${r.nights[r.nights.length - 1]})`;
    const ru = process.resourceUsage();
    const took = `${((performance.now() - t0) / 1000).toFixed(1)} s (CPU ${((ru.userCPUTime + ru.systemCPUTime) / 1e6).toFixed(1)} s), peak RSS ${Math.round(ru.maxRSS / 1024)} MB`;
    process.stdout.write(`adsnap report: ${nights}, ${r.figures} figures, ${r.charts} charts in ${took}\n  ${path.relative(process.cwd(), r.index) || r.index}\n  ${path.relative(process.cwd(), r.json) || r.json}\n`);
    return 0;
  },
};

function parseBuckets(text: string): number[] {
  const parts = text.split(',').map((s) => s.trim());
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p) || Number(p) < 1 || !Number.isSafeInteger(Number(p))) throw new UsageError(`--rank-buckets: '${p}' is not a positive whole rank`);
    const n = Number(p);
    if (out.length > 0 && n <= out[out.length - 1]!) throw new UsageError('--rank-buckets must be ascending, each rank once');
    out.push(n);
  }
  if (out.length > 20) throw new UsageError('--rank-buckets: at most 20 buckets');
  return out;
}
