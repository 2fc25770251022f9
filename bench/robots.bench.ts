/**
 * robots.txt: both readings (`rfc`, `google`) beside the `robots-parser` npm package, on the real
 * corpus (corpus/robots + corpus/lists/robotstxt-benchmark-urls.tsv):
 * - parse MB/s (one parser serves both readings);
 * - checks/s compiled once per site, then every URL × agent (the crawl's shape);
 * - checks/s with parse + compile once per site;
 * - checks/s parsing the file for every check (the shape of Google's C++ API,
 *   `AllowedByRobots(body, agents, url)`), on every PER_CHECK_STRIDE-th check;
 * then where the readings disagree with each other (the divergences of
 * docs/reference/robots-semantics.md) and where the rfc reading disagrees with robots-parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseRobotsTxt, pathFromUrl, normaliseUrlPath, urlPathOctets, RobotsMatcher, ROBOTS_PARSE_LIMIT, type RobotsSemantics, type RobotsTxt } from '../src/parse/robots/index.js';
import { corpusDir, hasCorpus } from './corpus.js';

const AGENTS = ['Googlebot', 'GPTBot', 'adsnap'];
const ROUNDS = 5; // after one warm-up round; the median is reported (shared, noisy host)
const PER_CHECK_STRIDE = 50; // parse-per-check runs on every 50th check: a full pass would take minutes
const READINGS: readonly RobotsSemantics[] = ['rfc', 'google'];

/** robots-parser 3.0.1's instance (its `_rules` is read only to explain disagreements). */
interface Rp {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
  _rules: Record<string, unknown>;
}
// A CommonJS module whose typings declare an ES default export: load it as CommonJS.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => Rp;

interface Site {
  text: string;
  bytes: Buffer;
  urls: string[];
  txt: RobotsTxt;
  ours: Record<RobotsSemantics, RobotsMatcher>;
  theirs: Map<string, Rp>;
}

/** Median of the timed rounds; the first (warm-up) round is dropped. */
function median(xs: number[]): number {
  const s = xs.slice(1).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Runs each named function ROUNDS + 1 times, interleaved so that load on the host hits all alike. */
function rounds(fns: Record<string, () => void>): Record<string, number> {
  const times: Record<string, number[]> = {};
  for (let r = 0; r <= ROUNDS; r++) {
    for (const [name, fn] of Object.entries(fns)) {
      globalThis.gc?.();
      const t0 = process.hrtime.bigint();
      fn();
      (times[name] ??= []).push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

const origin = (u: string) => /^[a-z]+:\/\/[^/?#]+/i.exec(u)?.[0] ?? '';

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
  const mb = within.reduce((n, f) => n + f.bytes.length, 0) / 1e6;

  // Parse first, while the heap holds only the files (as before the readings existed: comparable figures).
  const parse = rounds({
    ours: () => within.forEach((f) => parseRobotsTxt(f.bytes)),
    theirs: () => texts.forEach((t) => robotsParser('https://example.com/robots.txt', t)),
  });

  const byDomain = new Map<string, string[]>();
  for (const line of readFileSync(path.join(corpusDir, 'lists/robotstxt-benchmark-urls.tsv'), 'utf8').split('\n').slice(1)) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const list = byDomain.get(line.slice(0, tab)) ?? [];
    list.push(line.slice(tab + 1));
    byDomain.set(line.slice(0, tab), list);
  }
  const sites: Site[] = [];
  for (const [domain, urls] of byDomain) {
    const f = within.find((x) => x.name === `${domain}.txt`);
    if (!f) continue;
    const text = f.bytes.toString('utf8');
    const txt = parseRobotsTxt(f.bytes);
    // robots-parser answers only for URLs on the robots.txt's own origin: one instance per origin.
    const theirs = new Map<string, Rp>();
    for (const u of urls) if (!theirs.has(origin(u))) theirs.set(origin(u), robotsParser(`${origin(u)}/robots.txt`, text));
    sites.push({ text, bytes: f.bytes, urls, txt, ours: { rfc: RobotsMatcher.compile(txt), google: RobotsMatcher.compile(txt, { semantics: 'google' }) }, theirs });
  }
  const checks = sites.reduce((n, s) => n + s.urls.length, 0) * AGENTS.length;
  // Every PER_CHECK_STRIDE-th (site, agent, url), for the parse-per-check shape.
  const sample: { site: Site; ua: string; url: string }[] = [];
  let k = 0;
  for (const site of sites) for (const ua of AGENTS) for (const url of site.urls) if (k++ % PER_CHECK_STRIDE === 0) sample.push({ site, ua, url });

  let sink = 0;
  const once = rounds({
    ...Object.fromEntries(READINGS.map((sem) => [sem, () => {
      for (const s of sites) for (const ua of AGENTS) for (const u of s.urls) if (s.ours[sem].check(ua, u).allowed) sink++;
    }])),
    theirs: () => {
      for (const s of sites) for (const ua of AGENTS) for (const u of s.urls) if (s.theirs.get(origin(u))!.isAllowed(u, ua)) sink++;
    },
  });
  // Parse + compile once per site (the crawl's real shape: a fresh file per host).
  const perSite = rounds({
    ...Object.fromEntries(READINGS.map((semantics) => [semantics, () => {
      for (const s of sites) {
        const m = RobotsMatcher.compile(parseRobotsTxt(s.bytes), { semantics });
        for (const ua of AGENTS) for (const u of s.urls) if (m.check(ua, u).allowed) sink++;
      }
    }])),
    theirs: () => {
      for (const s of sites) {
        const rps = new Map<string, Rp>();
        for (const ua of AGENTS)
          for (const u of s.urls) {
            let rp = rps.get(origin(u));
            if (!rp) rps.set(origin(u), (rp = robotsParser(`${origin(u)}/robots.txt`, s.text)));
            if (rp.isAllowed(u, ua)) sink++;
          }
      }
    },
  });
  const perCheck = rounds({
    ...Object.fromEntries(READINGS.map((semantics) => [semantics, () => {
      for (const c of sample) if (RobotsMatcher.compile(parseRobotsTxt(c.site.bytes), { semantics }).check(c.ua, c.url).allowed) sink++;
    }])),
    theirs: () => {
      for (const c of sample) if (robotsParser(`${origin(c.url)}/robots.txt`, c.site.text).isAllowed(c.url, c.ua)) sink++;
    },
  });
  if (sink < 0) console.log(sink);

  console.log(`\n${within.length} robots.txt files ≤ 500 KiB (${mb.toFixed(1)} MB) of ${files.length}; ${sites.length} sites with ${checks / AGENTS.length} real URLs × ${AGENTS.length} agents (${AGENTS.join(', ')}) = ${checks} checks (parse-per-check: every ${PER_CHECK_STRIDE}th, ${sample.length}); median of ${ROUNDS} rounds after a warm-up.\n`);
  console.log('| measure | adsnap rfc | adsnap google | robots-parser 3.0.1 |');
  console.log('|---|---|---|---|');
  console.log(`| parse, MB/s (one parser for both readings) | ${(mb / parse.ours!).toFixed(1)} | ${(mb / parse.ours!).toFixed(1)} | ${(mb / parse.theirs!).toFixed(1)} |`);
  const row = (label: string, t: Record<string, number>, n: number) => console.log(`| ${label} | ${fmt(n / t.rfc!)} | ${fmt(n / t.google!)} | ${fmt(n / t.theirs!)} |`);
  row('checks/s, compiled once per site', once, checks);
  row('checks/s, parse + compile once per site', perSite, checks);
  row('checks/s, parse + compile per check', perCheck, sample.length);

  report('rfc vs google (the documented divergences)', sites, (s, ua, u) => {
    const a = s.ours.rfc.check(ua, u);
    const b = s.ours.google.check(ua, u);
    return a.allowed === b.allowed ? null : divergence(s.txt, u, a.matchedLine, b.matchedLine);
  }, checks);
  report('rfc vs robots-parser', sites, (s, ua, u) => {
    const a = s.ours.rfc.check(ua, u);
    const rp = s.theirs.get(origin(u))!;
    return rp.isAllowed(u, ua) === a.allowed ? null : classify(s.ours.rfc, rp, s.txt, s.text.split(/\r\n|\r|\n/), ua, u, a.matchedLine);
  }, checks);
}

/** Counts the checks where `why` names a reason, and prints them by reason. */
function report(title: string, sites: Site[], why: (s: Site, ua: string, url: string) => string | null, checks: number): void {
  const reasons = new Map<string, number>();
  let n = 0;
  for (const s of sites) {
    for (const ua of AGENTS) {
      for (const u of s.urls) {
        const r = why(s, ua, u);
        if (r === null) continue;
        n++;
        reasons.set(r, (reasons.get(r) ?? 0) + 1);
      }
    }
  }
  console.log(`\nDisagreements, ${title}: ${n} of ${checks} checks (${((n / checks) * 100).toFixed(3)}%).\n`);
  if (n === 0) return;
  console.log('| reason | checks |');
  console.log('|---|---|');
  for (const [r, c] of [...reasons].sort((x, y) => y[1] - x[1])) console.log(`| ${r} | ${c} |`);
}

function fmt(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)} k`;
}

/** Which divergence between the readings explains a disagreement (docs/reference/robots-semantics.md). */
function divergence(txt: RobotsTxt, url: string, rfcLine: number | null, googleLine: number | null): string {
  const p = pathFromUrl(url);
  if (p === '/robots.txt') return '/robots.txt implicitly allowed in rfc (RFC 9309 §2.2.2)';
  if (normaliseUrlPath(p) !== urlPathOctets(p)) return 'URL path normalised in rfc, as given in google (RFC 9309 §2.2.2)';
  const rule = (line: number | null) => txt.groups.flatMap((g) => g.rules).find((r) => r.lineNo === line);
  const rules = [rule(rfcLine), rule(googleLine)];
  if (rules.some((r) => r && r.directive === 'allow' && /\/index\.htm[^/]*$/i.test(r.octets))) return 'Allow …/index.htm* stands for its directory in google';
  if (rules.some((r) => r && r.octets.length > 0 && r.octets[0] !== '/' && r.octets[0] !== '*')) return 'value without a leading / (rfc adds it; google matches nothing)';
  if (rules.some((r) => r && r.pattern !== r.octets)) return 'pattern normalised in rfc (RFC 9309 §2.2.2, §2.2.3)';
  return `other (rfc line ${rfcLine}, google line ${googleLine})`;
}

/** Why adsnap and robots-parser answer differently, judged from the group and lines each used. */
function classify(ours: RobotsMatcher, rp: Rp, txt: RobotsTxt, lines: string[], ua: string, url: string, ourLine: number | null): string {
  const theirLine = rp.getMatchingLineNumber(url, ua);
  const theirsSpecific = Object.prototype.hasOwnProperty.call(rp._rules, ua.toLowerCase());
  if (ours.hasGroupFor(ua) !== theirsSpecific) return 'group choice: user-agent token/typo, or a record between user-agent lines (RFC 9309 §2.2.1, §2.2.4)';
  const p = pathFromUrl(url);
  if (normaliseUrlPath(p) !== p || /%/.test(p)) return 'percent-encoding of the URL (RFC 9309 §2.2.2)';
  if (p === '/robots.txt') return '/robots.txt always allowed (RFC 9309 §2.2.2)';
  const text = (n: number | null) => (n !== null && n > 0 ? (lines[n - 1] ?? '') : '');
  const ruleLines = txt.groups.flatMap((g) => g.rules.map((r) => r.lineNo));
  if (ourLine !== null && ourLine > 0 && !/^\s*(allow|disallow)\s*:/i.test(text(ourLine))) return 'lenient keys: typo or missing colon accepted (Google reference)';
  if (theirLine > 0 && !ruleLines.includes(theirLine)) return 'rule outside any group, or line numbering';
  // eslint-disable-next-line no-control-regex
  if (/%|[^\x00-\x7f]/.test(text(ourLine) + text(theirLine))) return 'percent-encoding of the rule (RFC 9309 §2.2.2)';
  if (/[*$]/.test(text(ourLine) + text(theirLine))) return 'wildcard / end-anchor handling (RFC 9309 §2.2.3)';
  const ourRule = txt.groups.flatMap((g) => g.rules).find((r) => r.lineNo === ourLine);
  if (ourRule && ourRule.octets.length > 0 && ourRule.octets[0] !== '/') return 'value without a leading / (rfc reads it rooted; robots-parser matches nothing)';
  return `other (ours line ${ourLine}, theirs line ${theirLine})`;
}
