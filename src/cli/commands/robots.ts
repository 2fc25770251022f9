/**
 * `adsnap robots check [--semantics rfc|google] [--jsonl] [ROBOTS_FILE USER_AGENT URL…]`
 * (contract §1) and `adsnap robots verdicts ROBOTS_FILE [--semantics …] [--agents A,B] [--paths P,Q]`.
 *
 * `--semantics` picks the reading (docs/reference/robots-semantics.md): `rfc` (default, RFC 9309)
 * or `google` (Google's C++ reference matcher, which also reads a file whole: no 500 KiB limit).
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
import { DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS, isRobotsSemantics, parseRobotsTxt, RobotsMatcher, rulesPolicy, verdicts, type RobotsSemantics, type RobotsTxt } from '../../parse/robots/index.js';

const usage = `Usage:
  adsnap robots check [--semantics rfc|google] ROBOTS_FILE USER_AGENT URL…
      Prints "allowed<TAB>URL" or "disallowed<TAB>URL" per URL.
      ROBOTS_FILE may be - for stdin. A URL may be absolute or a path (/a/b?c).
  adsnap robots check [--semantics rfc|google] --jsonl
      Reads JSON lines {"robotstxt":"…"|"robotstxt_base64":"…","useragent":"…","url":"…"} from
      stdin and writes {"allowed":true|false} per line, in order ({"error":"…"} for a bad line;
      the exit status is then 1).
  adsnap robots verdicts [--semantics rfc|google] ROBOTS_FILE [--agents A,B,…] [--paths P,Q,…]
      Prints user_agent, path, allowed, matched_line (TSV) for each agent × path; defaults are
      the robots_verdicts agents (${DEFAULT_VERDICT_AGENTS.length}) and paths (${DEFAULT_VERDICT_PATHS.join(' ')}).

  --semantics rfc     RFC 9309, then Google's written spec where the RFC is silent (default):
                      /robots.txt always allowed, percent-encoding normalised on both sides.
  --semantics google  what Google's open-source C++ matcher (google/robotstxt) answers: the URL
                      compared as given, no implicit /robots.txt allow, Allow …/index.html also
                      allows …/, the whole file read (no 500 KiB limit).
  See docs/reference/robots-semantics.md for every difference.`;

export const command: Command = {
  summary: "check URLs against a robots.txt (RFC 9309 or Google's reading), one-off or as a JSON-lines service",
  usage,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'check') return check(rest);
    if (sub === 'verdicts') return verdictTable(rest);
    throw new UsageError(sub === undefined ? 'missing subcommand (check or verdicts)' : `unknown subcommand '${sub}'`);
  },
};

/** `--semantics`, checked at the edge. */
function semanticsFlag(value: string | undefined): RobotsSemantics {
  if (value === undefined) return 'rfc';
  if (!isRobotsSemantics(value)) throw new UsageError(`--semantics must be 'rfc' or 'google', got ${JSON.stringify(value)}`);
  return value;
}

/** Google's reference reads the whole body; the rfc reading stops at RFC 9309 §2.5's 500 KiB. */
function parseFor(body: Uint8Array, semantics: RobotsSemantics): RobotsTxt {
  return parseRobotsTxt(body, semantics === 'google' ? { maxBytes: Number.MAX_SAFE_INTEGER } : undefined);
}

function compile(body: Uint8Array, semantics: RobotsSemantics): RobotsMatcher {
  return RobotsMatcher.compile(parseFor(body, semantics), { semantics });
}

async function check(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { jsonl: { type: 'boolean' }, semantics: { type: 'string' } });
  const semantics = semanticsFlag(values.semantics);
  if (values.jsonl) {
    if (positionals.length > 0) throw new UsageError('--jsonl reads its cases from stdin; give no other arguments');
    return checkJsonl(semantics);
  }
  if (positionals.length < 3) throw new UsageError('check needs ROBOTS_FILE USER_AGENT URL…');
  const [file, agent, ...urls] = positionals as [string, string, ...string[]];
  const body = await readBody(file);
  if (body === null) return 1;
  const matcher = compile(body, semantics);
  let out = '';
  for (const url of urls) out += `${matcher.check(agent, url).allowed ? 'allowed' : 'disallowed'}\t${url}\n`;
  await write(out);
  return 0;
}

async function verdictTable(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { agents: { type: 'string' }, paths: { type: 'string' }, semantics: { type: 'string' } });
  const semantics = semanticsFlag(values.semantics);
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
  const rows = verdicts(rulesPolicy(compile(body, semantics)), agents, paths);
  let out = 'user_agent\tpath\tallowed\tmatched_line\n';
  for (const r of rows) out += `${r.userAgent}\t${r.path}\t${r.allowed}\t${r.matchedLine ?? ''}\n`;
  await write(out);
  return 0;
}

async function checkJsonl(semantics: RobotsSemantics): Promise<number> {
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
        lastMatcher = compile(body, semantics);
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

