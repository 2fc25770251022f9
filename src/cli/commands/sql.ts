/**
 * `adsnap sql ROOT… [-c SQL] [--format table|csv|json|ndjson]`: DuckDB over snapshot roots with
 * the shipped views (sql/views.sql) loaded, so an analyst starts from a snapshot in one command,
 * without a DuckDB install. A query given → its result printed; no query → an interactive prompt
 * on a terminal, else the SQL script on stdin.
 */
import { writeStdout as write } from '../stdout.js';
import { createInterface } from 'node:readline';
import { ResultReturnType } from '@duckdb/node-api';
import { openSnapshotDb } from '../../sql/snapshot-db.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import { FORMATS, printResult, type Format, type OutputOptions } from '../../sql/output.js';
import { UsageError } from '../usage-error.js';
import { visibleLines } from '../../text/visible.js';
import { isDirectory } from '../../util/directory.js';
import { checkSnapshotRoots } from '../snapshot-roots.js';

const usage = `Usage: adsnap sql ROOT… [-c SQL] [--format table|csv|json|ndjson] [--spreadsheet-safe] [-i]
       adsnap sql ROOT… QUERY

Runs SQL with DuckDB (built in) over snapshot directories: the --out directories of \`adsnap crawl\`,
several read as one. Every table (targets, fetches, files, ads_records, sellers, …) and every view
of sql/views.sql (adoption, authorized_sellers, seller_match, record_changes, …) spans all the
snapshot dates of all the ROOTs; filter on snapshot_date for one night. Each ROOT needs at least
one complete run (a manifest in ROOT/_runs).

  -c, --query SQL    the SQL to run; with several statements (separated by ;) the last one's
                     result is printed. Without -c, the last argument is the query when there are
                     two or more arguments and it does not name an existing directory (with -c,
                     every argument is a ROOT).
  --format FORMAT    table (default): aligned columns, NULL shown as NULL;
                     csv: RFC 4180 with a header row, CRLF line ends, NULL empty ("" is an empty string),
                       every value exactly as stored (data for programs);
                     json: one array of objects; ndjson: one object per line.
                     BIGINT as a number when exact, else a string; dates YYYY-MM-DD; timestamps
                     ISO 8601 (UTC, Z); lists as JSON arrays. In table, control characters and
                     escape sequences in values are shown (\\x1b, \\u202e), not sent to the terminal.
  --spreadsheet-safe with csv, for a spreadsheet: a text cell starting with = + - @, a tab or a
                     carriage return that is not a number gets a leading ' and is quoted, so the
                     spreadsheet shows it instead of running it as a formula (the report's CSVs
                     always are). Without it, csv is faithful.
  -i, --interactive  the prompt even when stdin is not a terminal.

Without a query: with stdin a terminal, a prompt (adsnap>) runs each statement once a line ends
with ; (a statement may span lines) and prints its result; .tables or .views lists the views,
.quit (or Ctrl-D) exits, Ctrl-C drops the statement being typed or stops the one running.
Without a terminal, the SQL script on stdin is run, statement by statement, and the last result
printed.

Exit status: 0 done; 1 SQL error (the message on stderr) or a ROOT whose first run has not
completed; 2 bad usage, or a ROOT that is no snapshot root (missing, a file, an empty or
unrelated directory).

Examples:
  adsnap sql out -c "SELECT snapshot_date, count(*) FROM files GROUP BY 1 ORDER BY 1"
  adsnap sql out "SELECT * FROM adoption WHERE NOT ads_txt_valid LIMIT 20"
  adsnap sql out --format csv -c "SELECT * FROM record_changes" > changes.csv
  adsnap sql shard-a shard-b --format ndjson < report.sql
  adsnap sql out`;

type Db = Awaited<ReturnType<typeof openSnapshotDb>>;

export const command: Command = {
  summary: 'run SQL (DuckDB, built in) over snapshots with the shipped views; a prompt without a query',
  usage,
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      query: { type: 'string', short: 'c' },
      format: { type: 'string' },
      interactive: { type: 'boolean', short: 'i' },
      'spreadsheet-safe': { type: 'boolean' },
    });
    const format = (values.format ?? 'table') as Format;
    if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(values.format)}`);
    if (values['spreadsheet-safe'] && format !== 'csv') throw new UsageError('--spreadsheet-safe applies to --format csv only');
    const output: OutputOptions = { format, spreadsheetSafe: values['spreadsheet-safe'] === true };
    const roots = [...positionals];
    let query = values.query;
    let positionalQuery = false;
    if (query === undefined && roots.length >= 2 && !isDirectory(roots[roots.length - 1]!)) {
      query = roots.pop()!;
      positionalQuery = true;
    }
    if (roots.length === 0) throw new UsageError('give at least one ROOT (a snapshot directory)');
    if (query !== undefined && values.interactive) throw new UsageError('--interactive runs no query given on the command line');
    if (query !== undefined && query.trim() === '') throw new UsageError('the query is empty');

    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      // A reader that went away (`| head`) is not an error.
      if (err.code === 'EPIPE') process.exit(0);
    });

    // No snapshot root: exit 2 (one line); a root with no complete run yet: exit 1 below.
    checkSnapshotRoots(roots);
    let db: Db;
    try {
      db = await openSnapshotDb(roots.length === 1 ? roots[0]! : roots);
    } catch (err) {
      process.stderr.write(`adsnap sql: ${(err as Error).message}\n`);
      return 1;
    }
    try {
      if (query !== undefined) {
        try {
          await runScript(db, query, output);
          return 0;
        } catch (err) {
          let msg = sqlError(err);
          if (positionalQuery && !/\s/.test(query)) msg += `\n(took the last argument ${JSON.stringify(query)} as the query: it is not a directory)`;
          process.stderr.write(`adsnap sql: ${msg}\n`);
          return 1;
        }
      }
      if (values.interactive || process.stdin.isTTY) return await prompt(db, output);
      const script = await readStdin();
      try {
        await runScript(db, script, output);
        return 0;
      } catch (err) {
        process.stderr.write(`adsnap sql: ${sqlError(err)}\n`);
        return 1;
      }
    } finally {
      db.close();
    }
  },
};

/** DuckDB's message without the wrapper the statement splitter adds. */
function sqlError(err: unknown): string {
  // A value quoted in DuckDB's message (a failed cast of a seller name…) is shown, not obeyed.
  return visibleLines(((err as Error)?.message ?? String(err)).replace(/^Failed to extract statements: /, '').trimEnd());
}

/**
 * Runs every statement of `sql` in order, stopping at the first error (thrown); prints the last
 * statement's result (`printAll`: every statement's) when it is a query result.
 */
async function runScript(db: Db, sql: string, output: OutputOptions, printAll = false): Promise<void> {
  if (!hasStatement(sql)) return;
  const statements = await db.connection.extractStatements(sql);
  for (let i = 0; i < statements.count; i++) {
    const prepared = await statements.prepare(i);
    const print = printAll || i === statements.count - 1;
    if (!print) {
      await prepared.run();
      continue;
    }
    const result = await prepared.stream();
    if (result.returnType === ResultReturnType.QUERY_RESULT) await printResult(result, output, write);
  }
}

/**
 * Scans SQL outside string literals ('…', "…", $$…$$) and comments (-- …, /* … *\/): whether it
 * holds anything, and whether it ends with a statement-ending `;` (nothing left open).
 */
export function scanSql(sql: string): { significant: boolean; complete: boolean } {
  let last = '';
  let significant = false;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const ch = sql[i]!;
    if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) return { significant, complete: false };
      i = end + 2;
      continue;
    }
    if (ch === "'" || ch === '"' || (ch === '$' && sql[i + 1] === '$')) {
      const close = ch === '$' ? '$$' : ch;
      const end = sql.indexOf(close, i + close.length);
      if (end < 0) return { significant: true, complete: false };
      // '' and "" inside a literal are escaped quotes: the scan goes on from the second one.
      i = end + close.length;
      significant = true;
      last = ch;
      continue;
    }
    if (!/\s/.test(ch)) {
      significant = true;
      last = ch;
    }
    i++;
  }
  return { significant, complete: last === ';' };
}

/** Whether SQL holds a statement: anything but `;` outside comments. */
const hasStatement = (sql: string) => scanSql(sql.replace(/;/g, ' ')).significant;

/** The interactive prompt: statements ending with `;`, dot commands, history, Ctrl-C. */
async function prompt(db: Db, output: OutputOptions): Promise<number> {
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal, historySize: 1000 });
  const PROMPT = 'adsnap> ';
  const MORE = '   ...> ';
  let buffer = '';
  let running = false;
  if (terminal) process.stdout.write('adsnap sql: DuckDB with the snapshot views. End statements with ;  .tables lists the views, .help the commands, .quit exits.\n');
  rl.on('SIGINT', () => {
    if (running) {
      db.connection.interrupt();
      return;
    }
    buffer = '';
    process.stdout.write('^C\n');
    rl.setPrompt(PROMPT);
    rl.prompt();
  });
  rl.setPrompt(PROMPT);
  rl.prompt();
  for await (const line of rl) {
    if (buffer === '' && line.trim().startsWith('.')) {
      const [cmd] = line.trim().split(/\s+/);
      if (cmd === '.quit' || cmd === '.exit' || cmd === '.q') break;
      await dotCommand(db, cmd!);
      rl.prompt();
      continue;
    }
    buffer += (buffer === '' ? '' : '\n') + line;
    const scan = scanSql(buffer);
    if (!scan.significant && !buffer.includes('/*')) {
      buffer = '';
    } else if (scan.complete) {
      const sql = buffer;
      buffer = '';
      running = true;
      try {
        await runScript(db, sql, output, true);
      } catch (err) {
        process.stderr.write(`${sqlError(err)}\n`);
      } finally {
        running = false;
      }
    }
    rl.setPrompt(buffer === '' ? PROMPT : MORE);
    rl.prompt();
  }
  rl.close();
  process.stdout.write('\n');
  return 0;
}

async function dotCommand(db: Db, cmd: string): Promise<void> {
  if (cmd === '.tables' || cmd === '.views') {
    const reader = await db.connection.runAndReadAll(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ${cmd === '.views' ? "AND table_type = 'VIEW' " : ''}ORDER BY table_name`,
    );
    await write(reader.getRowsJS().map((r) => String(r[0])).join('\n') + '\n');
  } else if (cmd === '.help') {
    await write('.tables      the tables and views (.views: the views only)\n.quit        exit (also .exit, Ctrl-D)\nStatements run once a line ends with ; (a statement may span lines).\n');
  } else {
    process.stderr.write(`unknown command ${cmd} (.help lists them)\n`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

