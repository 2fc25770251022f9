/**
 * `adsnap derive ROOT… [--night YYYY-MM-DD]`: writes the vocabulary's derived tables
 * (src/report/derived.ts) for every night of each ROOT that lacks a current set.
 */
import { isCalendarDate } from '../../util/calendar-date.js';
import { deriveRoot } from '../../report/derived.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { checkCompleteSnapshotRoots } from '../snapshot-roots.js';
import { exitStatusOf } from '../exit-codes.js';
import { visibleLines } from '../../text/visible.js';

const usage = `Usage: adsnap derive ROOT… [--night YYYY-MM-DD]

Writes the derived tables of each night of each ROOT (a snapshot root: the --out directory of
\`adsnap crawl\`) that has none, or whose set is stale: a root written before derived tables
existed, a night copied from elsewhere or crawled again, a changed vocabulary. The derived
tables hold the figure views' rows (listed_sites, listed_apps, file_scopes, ad_system_sites,
ad_company_sites, ad_system_seller_checks, parse_issue_counts, headline_figures) and the night
summary, one set per night under ROOT/_derived; and each night's series set, its record_changes
(computed from the night before's set, so a night before it crawled again, added or deleted makes
it stale). The report and \`adsnap sql\` read them for the nights that have a current set, and the
views' definitions for the others (the same numbers). The crawl's commit and \`adsnap reparse\`
write them for their night (and the series sets from it on, when the night before has one): this
command is for the rest, and writes missing series sets from the first night on.

Idempotent (a night with current sets is left as it is), atomic per night (a kill leaves the
night as it was; the next run finishes it), one night at a time under the night's lock, the
series sets oldest first under the root's series lock.

  --night DATE   only this night (and the series sets up to it)

Exit status: 0 done (nothing to do included); 1 failed; 2 bad usage, or a ROOT that is not a
snapshot root (nothing written); 75 another derivation of a night is running: try later.`;

export const command: Command = {
  summary: 'write the derived tables (the figures\u2019 vocabulary per night) that a snapshot root lacks',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { night: { type: 'string' } });
    if (positionals.length === 0) throw new UsageError('name at least one snapshot ROOT');
    const night = values.night;
    if (night !== undefined && !isCalendarDate(night)) throw new UsageError(`--night must be a calendar date YYYY-MM-DD, got '${night}'`);
    // Every ROOT is checked before anything is written: a path that is no snapshot root creates nothing (exit 2).
    checkCompleteSnapshotRoots(positionals);
    const lines: string[] = [];
    try {
      for (const root of positionals) {
        const done = await deriveRoot(root, {
          night,
          onMemoryRetry: (next, err) => process.stderr.write(`adsnap derive: ${err.message.split('\n')[0]}; again with memory_limit ${next}\n`),
        });
        const written = done.filter((d) => d.outcome === 'written');
        if (night !== undefined && done.length === 0) lines.push(`${root}: no complete run of ${night}`);
        else lines.push(`${root}: ${written.length} night${written.length === 1 ? '' : 's'} derived, ${done.length - written.length} already current`);
        for (const d of written) lines.push(`  ${d.night}: ${d.seconds.toFixed(1)} s`);
      }
    } catch (err) {
      process.stdout.write(lines.map((l) => l + '\n').join(''));
      process.stderr.write(`adsnap derive: ${visibleLines((err as Error).message)}\n`);
      return exitStatusOf(err);
    }
    process.stdout.write(lines.map((l) => l + '\n').join(''));
    return 0;
  },
};
