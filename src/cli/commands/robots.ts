/**
 * `adsnap robots check [--jsonl] [ROBOTS_FILE USER_AGENT URL…]` (contract §1) and
 * `adsnap robots verdicts ROBOTS_FILE [--agents A,B] [--paths P,Q]`.
 *
 * `check --jsonl` is one process for any number of cases: stdin lines
 * `{"robotstxt"|"robotstxt_base64", "useragent", "url"}` → stdout lines `{"allowed":…}` in order.
 * Consecutive cases with the same robots.txt reuse one compiled matcher.
 */
import { writeStdout as write } from '../stdout.js';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS, parseRobotsTxt, RobotsMatcher, rulesPolicy, verdicts } from '../../parse/robots/index.js';

const usage = `Usage:
  adsnap robots check ROBOTS_FILE USER_AGENT URL…
      Prints "allowed<TAB>URL" or "disallowed<TAB>URL" per URL (RFC 9309 matching).
      ROBOTS_FILE may be - for stdin. A URL may be absolute or a path (/a/b?c).
  adsnap robots check --jsonl
      Reads JSON lines {"robotstxt":"…"|"robotstxt_base64":"…","useragent":"…","url":"…"} from
      stdin and writes {"allowed":true|false} per line, in order ({"error":"…"} for a bad line;
      the exit status is then 1).
  adsnap robots verdicts ROBOTS_FILE [--agents A,B,…] [--paths P,Q,…]
      Prints user_agent, path, allowed, matched_line (TSV) for each agent × path; defaults are
      the robots_verdicts agents (${DEFAULT_VERDICT_AGENTS.length}) and paths (${DEFAULT_VERDICT_PATHS.join(' ')}).`;

export const command: Command = {
  summary: 'check URLs against a robots.txt (RFC 9309), one-off or as a JSON-lines service',
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'check') return check(rest);
    if (sub === 'verdicts') return verdictTable(rest);
    throw new UsageError(sub === undefined ? 'missing subcommand (check or verdicts)' : `unknown subcommand '${sub}'`);
  },
};

async function check(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { jsonl: { type: 'boolean' } });
  if (values.jsonl) {
    if (positionals.length > 0) throw new UsageError('--jsonl reads its cases from stdin; give no other arguments');
    return checkJsonl();
  }
  if (positionals.length < 3) throw new UsageError('check needs ROBOTS_FILE USER_AGENT URL…');
  const [file, agent, ...urls] = positionals as [string, string, ...string[]];
  const body = await readBody(file);
  if (body === null) return 1;
  const matcher = RobotsMatcher.compile(parseRobotsTxt(body));
  let out = '';
  for (const url of urls) out += `${matcher.check(agent, url).allowed ? 'allowed' : 'disallowed'}\t${url}\n`;
  await write(out);
  return 0;
}

async function verdictTable(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { agents: { type: 'string' }, paths: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('verdicts needs exactly one ROBOTS_FILE');
  const list = (v: string | undefined, name: string): string[] | undefined => {
    if (v === undefined) return undefined;
    const items = v.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
    if (items.length === 0) throw new UsageError(`--${name} needs at least one value`);
    return items;
  };
  const agents = list(values.agents, 'agents');
  const paths = list(values.paths, 'paths');
  const body = await readBody(positionals[0]!);
  if (body === null) return 1;
  const rows = verdicts(rulesPolicy(parseRobotsTxt(body)), agents, paths);
  let out = 'user_agent\tpath\tallowed\tmatched_line\n';
  for (const r of rows) out += `${r.userAgent}\t${r.path}\t${r.allowed}\t${r.matchedLine ?? ''}\n`;
  await write(out);
  return 0;
}

async function checkJsonl(): Promise<number> {
  let failed = false;
  let lastKey: string | null = null;
  let lastMatcher: RobotsMatcher | null = null;
  let out = '';
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim().length === 0) continue;
    let result: string;
    try {
      const c = JSON.parse(line) as { robotstxt?: unknown; robotstxt_base64?: unknown; useragent?: unknown; url?: unknown };
      if (typeof c.useragent !== 'string' || typeof c.url !== 'string') throw new Error('useragent and url must be strings');
      const key = typeof c.robotstxt === 'string' ? 't' + c.robotstxt : typeof c.robotstxt_base64 === 'string' ? 'b' + c.robotstxt_base64 : null;
      if (key === null) throw new Error('robotstxt or robotstxt_base64 must be a string');
      if (key !== lastKey || lastMatcher === null) {
        const body = key[0] === 't' ? Buffer.from(key.slice(1), 'utf8') : Buffer.from(key.slice(1), 'base64');
        lastMatcher = RobotsMatcher.compile(parseRobotsTxt(body));
        lastKey = key;
      }
      result = lastMatcher.check(c.useragent, c.url).allowed ? '{"allowed":true}' : '{"allowed":false}';
    } catch (err) {
      failed = true;
      result = JSON.stringify({ error: (err as Error).message });
    }
    out += result + '\n';
    if (out.length >= 65536) {
      await write(out);
      out = '';
    }
  }
  await write(out);
  return failed ? 1 : 0;
}

async function readBody(file: string): Promise<Uint8Array | null> {
  try {
    if (file !== '-') return await readFile(file);
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch (err) {
    process.stderr.write(`adsnap robots: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return null;
  }
}

