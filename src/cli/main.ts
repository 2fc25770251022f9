import type { Command } from './command.js';
import { visible, visibleLines } from '../text/visible.js';
import { UsageError } from './usage-error.js';
import { EXIT_MEANINGS, exitStatusOf } from './exit-codes.js';
import { failureText, takeDebugFlag, DEBUG_ENV } from './failure.js';

// Commands are loaded lazily so that `adsnap parse` never pays for undici, DuckDB or the writer.
// Exported for scripts/gen-reference.ts, which writes docs/reference/cli.md from each `--help`.
export const commands: Record<string, () => Promise<{ command: Command }>> = {
  parse: () => import('./commands/parse.js'),
  robots: () => import('./commands/robots.js'),
  'app-ads-url': () => import('./commands/app-ads-url.js'),
  crawl: () => import('./commands/crawl.js'),
  simweb: () => import('./commands/simweb.js'),
  demo: () => import('./commands/demo.js'),
  reparse: () => import('./commands/reparse.js'),
  derive: () => import('./commands/derive.js'),
  sql: () => import('./commands/sql.js'),
  report: () => import('./commands/report.js'),
  verify: () => import('./commands/verify.js'),
};

async function help(): Promise<string> {
  const lines = ['adsnap — snapshots of the advertising supply chain (ads.txt, app-ads.txt, robots.txt, sellers.json)', '', 'Commands:'];
  for (const [name, load] of Object.entries(commands)) {
    try {
      const { command } = await load();
      lines.push(`  ${name.padEnd(12)} ${command.summary}`);
    } catch {
      lines.push(`  ${name.padEnd(12)} (not available in this build)`);
    }
  }
  lines.push('', 'Run `adsnap <command> --help` for a command\'s options; `adsnap --version` prints the version.');
  lines.push(`Every command takes --debug (or ${DEBUG_ENV}=1): an error prints its stack trace, not one line.`, '', 'Exit status:');
  for (const [status, meaning] of EXIT_MEANINGS) lines.push(`  ${String(status).padEnd(4)}${meaning}`);
  return lines.join('\n') + '\n';
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = takeDebugFlag(argv);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(await help());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    const { version } = await import('../util/version.js');
    process.stdout.write(`adsnap ${version}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`adsnap: unknown command '${visible(name)}'\n\n${await help()}`);
    return 2;
  }
  const { command } = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.usage.endsWith('\n') ? command.usage : command.usage + '\n');
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`adsnap ${name}: ${visibleLines(err.message)}\n${command.usage}\n`);
      return 2;
    }
    // One line; the stack trace only with --debug (failure.ts). A message may quote a host or a
    // value from the web: shown, not obeyed (text/visible.ts).
    process.stderr.write(`adsnap ${name}: ${visibleLines(failureText(err))}\n`);
    return exitStatusOf(err);
  }
}
