/**
 * robots.txt: parse throughput and compile-once-match-many checks per second over the real
 * corpus (corpus/robots + corpus/lists/robotstxt-benchmark-urls.tsv), side by side with the
 * `robots-parser` npm package on the same files and URLs, plus where and why the two disagree.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseRobotsTxt, pathFromUrl, normaliseUrlPath, RobotsMatcher, ROBOTS_PARSE_LIMIT, type RobotsTxt } from '../src/parse/robots/index.js';
import { corpusDir, hasCorpus } from './corpus.js';

const AGENTS = ['Googlebot', 'GPTBot', 'adsnap'];
const ROUNDS = 5; // after one warm-up round; the median is reported (shared, noisy host)

/** robots-parser 3.0.1's instance (its `_rules` is read only to explain disagreements). */
interface Rp {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
  _rules: Record<string, unknown>;
}
// A CommonJS module whose typings declare an ES default export: load it as CommonJS.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => Rp;

/** Median of the timed rounds; the first (warm-up) round is dropped. */
function median(xs: number[]): number {
  const s = xs.slice(1).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

export async function run(): Promise<void> {
  if (!hasCorpus) {
    console.log('corpus not found (set ADSNAP_CORPUS); skipped');
    return;
  }
  const dir = path.join(corpusDir, 'robots');
  const files = readdirSync(dir).filter((f) => f.endsWith('.txt')).map((f) => ({ name: f, bytes: readFileSync(path.join(dir, f)) }));
  // Both parsers read the same bytes: files within adsnap's 500 KiB parse limit (robots-parser has none).
  const within = files.filter((f) => f.bytes.length <= ROBOTS_PARSE_LIMIT);
  const texts = within.map((f) => f.bytes.toString('utf8'));
  const totalBytes = within.reduce((n, f) => n + f.bytes.length, 0);

  // --- parse throughput -------------------------------------------------------------------
  const oursParse: number[] = [];
  const theirsParse: number[] = [];
  for (let r = 0; r <= ROUNDS; r++) {
    globalThis.gc?.();
    oursParse.push(time(() => within.forEach((f) => parseRobotsTxt(f.bytes))));
    globalThis.gc?.();
    theirsParse.push(time(() => texts.forEach((t) => robotsParser('https://example.com/robots.txt', t))));
  }

  // --- checks: compile once per site, then match every URL of the site for each agent ---------
  const byDomain = new Map<string, string[]>();
  for (const line of readFileSync(path.join(corpusDir, 'lists/robotstxt-benchmark-urls.tsv'), 'utf8').split('\n').slice(1)) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const domain = line.slice(0, tab);
    const list = byDomain.get(domain) ?? [];
    list.push(line.slice(tab + 1));
    byDomain.set(domain, list);
  }
  const sites: { domain: string; text: string; bytes: Buffer; urls: string[]; txt: RobotsTxt; ours: RobotsMatcher; theirs: Map<string, Rp> }[] = [];
  for (const [domain, urls] of byDomain) {
    const f = files.find((x) => x.name === `${domain}.txt`);
    if (!f) continue;
    const text = f.bytes.toString('utf8');
    const txt = parseRobotsTxt(f.bytes);
    // robots-parser answers only for URLs on the robots.txt's own origin: one instance per origin.
    const theirs = new Map<string, Rp>();
    for (const u of urls) {
      const origin = /^[a-z]+:\/\/[^/?#]+/i.exec(u)?.[0] ?? '';
      if (!theirs.has(origin)) theirs.set(origin, robotsParser(`${origin}/robots.txt`, text));
    }
    sites.push({ domain, text, bytes: f.bytes, urls, txt, ours: RobotsMatcher.compile(txt), theirs });
  }
  const checks = sites.reduce((n, s) => n + s.urls.length, 0) * AGENTS.length;
  const origin = (u: string) => /^[a-z]+:\/\/[^/?#]+/i.exec(u)?.[0] ?? '';

  const oursCheck: number[] = [];
  const theirsCheck: number[] = [];
  const oursAll: number[] = [];
  const theirsAll: number[] = [];
  let sink = 0;
  for (let r = 0; r <= ROUNDS; r++) {
    globalThis.gc?.();
    oursCheck.push(time(() => {
      for (const s of sites) for (const ua of AGENTS) for (const u of s.urls) if (s.ours.check(ua, u).allowed) sink++;
    }));
    globalThis.gc?.();
    theirsCheck.push(time(() => {
      for (const s of sites) for (const ua of AGENTS) for (const u of s.urls) if (s.theirs.get(origin(u))!.isAllowed(u, ua)) sink++;
    }));
    // Including parse + compile, one per site (the crawl's real shape: a fresh file per host).
    globalThis.gc?.();
    oursAll.push(time(() => {
      for (const s of sites) {
        const m = RobotsMatcher.compile(parseRobotsTxt(s.bytes));
        for (const ua of AGENTS) for (const u of s.urls) if (m.check(ua, u).allowed) sink++;
      }
    }));
    globalThis.gc?.();
    theirsAll.push(time(() => {
      for (const s of sites) {
        const rps = new Map<string, Rp>();
        for (const ua of AGENTS)
          for (const u of s.urls) {
            const o = origin(u);
            let rp = rps.get(o);
            if (!rp) rps.set(o, (rp = robotsParser(`${o}/robots.txt`, s.text)));
            if (rp.isAllowed(u, ua)) sink++;
          }
      }
    }));
  }
  if (sink < 0) console.log(sink);

  // --- disagreements ------------------------------------------------------------------------
  const reasons = new Map<string, number>();
  let disagree = 0;
  for (const s of sites) {
    const lines = s.text.split(/\r\n|\r|\n/);
    for (const ua of AGENTS) {
      for (const u of s.urls) {
        const a = s.ours.check(ua, u);
        const rp = s.theirs.get(origin(u))!;
        const b = rp.isAllowed(u, ua);
        if (b === a.allowed) continue;
        disagree++;
        const why = classify(s.ours, rp, s.txt, lines, ua, u, a.matchedLine);
        reasons.set(why, (reasons.get(why) ?? 0) + 1);
      }
    }
  }

  const mb = totalBytes / 1e6;
  const om = median(oursParse);
  const tm = median(theirsParse);
  console.log(`\n${within.length} robots.txt files ≤ 500 KiB (${mb.toFixed(1)} MB) of ${files.length}; ${sites.length} sites with ${checks / AGENTS.length} real URLs × ${AGENTS.length} agents (${AGENTS.join(', ')}) = ${checks} checks; median of ${ROUNDS} rounds after a warm-up.\n`);
  console.log('| measure | adsnap | robots-parser 3.0.1 | ratio |');
  console.log('|---|---|---|---|');
  console.log(`| parse, MB/s | ${(mb / om).toFixed(1)} | ${(mb / tm).toFixed(1)} | ${(tm / om).toFixed(2)}× |`);
  console.log(`| parse, µs per file (mean) | ${((om / within.length) * 1e6).toFixed(1)} | ${((tm / within.length) * 1e6).toFixed(1)} | |`);
  const oc = median(oursCheck);
  const tc = median(theirsCheck);
  console.log(`| checks/s, compiled once per site | ${fmt(checks / oc)} | ${fmt(checks / tc)} | ${(tc / oc).toFixed(2)}× |`);
  const oa = median(oursAll);
  const ta = median(theirsAll);
  console.log(`| checks/s incl. parse + compile per site | ${fmt(checks / oa)} | ${fmt(checks / ta)} | ${(ta / oa).toFixed(2)}× |`);
  console.log(`\nDisagreements: ${disagree} of ${checks} checks (${((disagree / checks) * 100).toFixed(2)}%).\n`);
  console.log('| reason | checks |');
  console.log('|---|---|');
  for (const [why, n] of [...reasons].sort((x, y) => y[1] - x[1])) console.log(`| ${why} | ${n} |`);
}

function fmt(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${(n / 1e3).toFixed(0)} k`;
}

/** Why adsnap and robots-parser answer differently, judged from the group and lines each used. */
function classify(ours: RobotsMatcher, rp: Rp, txt: RobotsTxt, lines: string[], ua: string, url: string, ourLine: number | null): string {
  const theirLine = rp.getMatchingLineNumber(url, ua);
  const rpKey = ua.toLowerCase();
  const theirsSpecific = Object.prototype.hasOwnProperty.call(rp._rules, rpKey);
  if (ours.hasGroupFor(ua) !== theirsSpecific) return 'group choice: user-agent token/typo, or a record between user-agent lines (RFC 9309 §2.2.1, §2.2.4)';
  const path = pathFromUrl(url);
  if (normaliseUrlPath(path) !== path || /%/.test(path)) return 'percent-encoding of the URL (RFC 9309 §2.2.2)';
  if (path === '/robots.txt') return '/robots.txt always allowed (RFC 9309 §2.2.2)';
  const text = (n: number | null) => (n !== null && n > 0 ? (lines[n - 1] ?? '') : '');
  const ruleLines = txt.groups.flatMap((g) => g.rules.map((r) => r.lineNo));
  const theirText = text(theirLine);
  if (ourLine !== null && ourLine > 0 && !/^\s*(allow|disallow)\s*:/i.test(text(ourLine))) return 'lenient keys: typo or missing colon accepted (Google reference)';
  if (theirLine > 0 && !ruleLines.includes(theirLine)) return 'rule outside any group, or line numbering';
  if (/%|[^\x00-\x7f]/.test(text(ourLine) + theirText)) return 'percent-encoding of the rule (RFC 9309 §2.2.2)';
  if (/[*$]/.test(text(ourLine) + theirText)) return 'wildcard / end-anchor handling (RFC 9309 §2.2.3)';
  return `other (ours line ${ourLine}, theirs line ${theirLine})`;
}
