import path from 'node:path';
import { isCalendarDate } from '../../util/calendar-date.js';
import { reparse } from '../../../pipelines/reparse.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { checkOutDir } from '../out-dir.js';
import { checkSnapshotRoots } from '../snapshot-roots.js';

const usage = `Usage: adsnap reparse SNAPSHOT_DIR --out DIR [--snapshot-date YYYY-MM-DD]

Rebuilds a snapshot's parsed tables with the current parsers, without fetching: every body kept
in SNAPSHOT_DIR/_bodies (ads.txt, app-ads.txt, robots.txt, sellers.json) is parsed again into
files, ads_records, ads_variables, parse_issues, robots_rules, robots_sitemaps, robots_verdicts
and sellers; targets, fetches, hops and apps are copied as they were. The rebuilt snapshot is
written to DIR (another directory). Default date: the latest in SNAPSHOT_DIR.

Exit status: 0 written; 1 failed (SNAPSHOT_DIR without a complete run included); 2 bad usage,
nothing written: SNAPSHOT_DIR no snapshot root (missing, a file, an empty or unrelated
directory), --out naming SNAPSHOT_DIR itself, or --out naming a file.`;

export const command: Command = {
  summary: 'rebuild a snapshot\u2019s tables from its kept bodies with the current parsers',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { out: { type: 'string' }, 'snapshot-date': { type: 'string' } });
    if (positionals.length !== 1) throw new UsageError('give one SNAPSHOT_DIR');
    if (!values.out) throw new UsageError('--out DIR is required');
    if (path.resolve(positionals[0]!) === path.resolve(values.out)) throw new UsageError('reparse writes a rebuilt snapshot to another --out directory');
    await checkOutDir(values.out);
    const date = values['snapshot-date'];
    if (date !== undefined && !isCalendarDate(date)) throw new UsageError(`--snapshot-date must be a calendar date YYYY-MM-DD, got ${JSON.stringify(date)}`);
    checkSnapshotRoots([positionals[0]!]);
    const r = await reparse({ source: positionals[0]!, outDir: values.out, snapshotDate: values['snapshot-date'] });
    const lines = [`reparsed snapshot ${r.snapshotDate}: ${r.reparsed} files parsed again from kept bodies, ${r.withoutBody} without a body (copied)`];
    for (const [t, x] of Object.entries(r.tables)) lines.push(`  ${t.padEnd(16)} ${x.rows} rows`);
    lines.push(`  manifest: ${r.manifestPath}`);
    process.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
};
