import path from 'node:path';
import { crawl } from '../../../pipelines/crawl.js';
import { RunStats } from '../../../pipelines/run-stats.js';
import { summarizeSnapshot } from '../../sql/snapshot-db.js';
import { buildReport } from '../../report/index.js';
import { parseConnectTo } from '../../fetch/index.js';
import { DEMO_WEB } from '../../simweb/demo-web.js';
import { startSimweb } from '../../simweb/index.js';
import { packageRoot } from '../../util/package-root.js';
import { intFlag, parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import { startProgress } from '../progress.js';
import { UsageError } from '../usage-error.js';

const usage = `Usage: adsnap demo [--out DIR] [--concurrency N]

Runs the main job end to end with nothing from the internet: starts the built-in simulated web
(synthetic sites calibrated from real files, hostile hosts and hand-written fixtures, with
latency), crawls the sample lists in data-samples/demo/ into a snapshot under DIR (default
./out), prints a DuckDB summary of it, and writes its report (adsnap report) to DIR/report/.`;

export const command: Command = {
  summary: 'crawl the built-in simulated web into ./out and summarize it',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, { out: { type: 'string' }, concurrency: { type: 'string' } });
    if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const outDir = values.out ?? 'out';
    const root = packageRoot();
    const samples = path.join(root, 'data-samples');
    process.stdout.write('adsnap demo: starting the simulated web (no internet is used)…\n');
    const web = await startSimweb({ ...DEMO_WEB, fixturesDir: path.join(samples, 'simweb-fixtures') });
    const stats = new RunStats();
    const progress = startProgress(stats, { mode: process.stderr.isTTY ? 'tty' : 'none' });
    try {
      const domains = path.join(samples, 'demo', 'top-sites.csv');
      const apps = path.join(samples, 'demo', 'apps.csv');
      process.stdout.write(`adsnap demo: crawling ${path.relative(process.cwd(), domains)} and ${path.relative(process.cwd(), apps)} into ${outDir}/ …\n`);
      const connectTo: string[] = [];
      for (let i = 0; i < web.connectArgs.length; i += 2) if (web.connectArgs[i] === '--connect-to') connectTo.push(web.connectArgs[i + 1]!);
      const result = await crawl({
        domains,
        apps,
        outDir,
        concurrency: intFlag('concurrency', values.concurrency, 32),
        // The demo shows every signal the report has a section for.
        aiSignals: true,
        stats,
        fetch: { connectTo: connectTo.map(parseConnectTo), caCerts: [web.caCertPem] },
      });
      progress.stop();
      const s = result.stats.snapshot();
      process.stdout.write(
        result.alreadyComplete
          ? `\nToday's demo snapshot is already in ${outDir}/ (run ${result.runId}); delete ${outDir}/ to crawl it again.\n\n`
          : `\nSnapshot ${result.snapshotDate}: ${s.targets_done} sites, ${s.apps_done} apps, ${s.partners_done} partners, ${s.sellers_done} sellers.json; ` +
              `${s.requests} requests in ${s.elapsed_s}s. Manifest: ${result.manifestPath}\n\n`,
      );
      process.stdout.write((await summarizeSnapshot(outDir, result.snapshotDate)) + '\n');
      const report = await buildReport({ roots: [outDir], outDir: path.join(outDir, 'report') });
      process.stdout.write(`\nReport (${report.figures} figures, ${report.charts} charts; open it in a browser, it works offline): ${report.index}\n`);
      process.stdout.write(
        `\nQuery it yourself: in DuckDB, SET VARIABLE adsnap_root = '${outDir}'; then run sql/views.sql and e.g.\n` +
          `  SELECT * FROM adoption ORDER BY rank LIMIT 20;   SELECT * FROM authorized_sellers LIMIT 20;\n`,
      );
      return 0;
    } finally {
      progress.stop();
      await web.close();
    }
  },
};
