/**
 * Compile a parsed robots.txt once, then answer "may this user agent fetch this URL" for many
 * URLs without re-parsing (RFC 9309 §2.2).
 *
 * Group choice (§2.2.1): every group with a user-agent whose leading product-token characters
 * equal the crawler's token (case-insensitive) applies, merged; when none does, the `*` groups
 * apply, merged; else no rule applies. A matching group without rules allows everything — it does
 * not fall back to `*`.
 *
 * Rule choice (§2.2.2): the matching rule with the most octets wins; on a tie `allow` wins; no
 * matching rule means allowed; `/robots.txt` is always allowed. Empty patterns match nothing.
 *
 * Per user agent, the merged rules are sorted once by priority (longest first, `allow` before
 * `disallow`, then file order), so a check stops at the first rule that matches.
 *
 * Two readings, chosen when compiling (`semantics`), one engine: `rfc` (the default) as above;
 * `google` answers as Google's open-source C++ matcher (google/robotstxt) does. Where they differ
 * (docs/reference/robots-semantics.md lists each with its RFC 9309 section):
 * - no implicit allow of `/robots.txt` (§2.2.2 has one);
 * - the URL's path is compared as given: no percent-encoding normalised, non-ASCII as its UTF-8
 *   octets (§2.2.2 normalises both sides); patterns are escaped as the reference does
 *   (escapeGooglePattern), and the priority is that escaped pattern's length;
 * - an `Allow` whose last segment starts `index.htm` also allows its directory, exactly
 *   (`Allow: /d/index.html` adds `/d/$`, priority 4 — its length);
 * - a value without a leading `/` or `*` is used as written, so it matches nothing (Google's
 *   written spec, and the rfc reading, add the `/`);
 * - a UTF-16 body yields no rules (the reference reads octets; NULs end its lines);
 * - the caller's user agent is folded to lower case in ASCII only, and an empty one matches a
 *   group whose user-agent value has no product-token characters.
 */
import { compilePattern, type PathPattern } from './path-pattern.js';
import { escapeGooglePattern, normaliseUrlPath, urlPathOctets } from './percent-encoding.js';
import type { RobotsRule, RobotsTxt } from './types.js';
import { pathFromUrl } from './url-path.js';
import { isGlobalAgent, productTokenOf } from './user-agent.js';

export interface RobotsCheck {
  allowed: boolean;
  /** Line of the deciding rule; null when no rule matched (or the policy is not `rules`). */
  matchedLine: number | null;
}

export interface RobotsCheckOptions {
  /**
   * Google-only behaviour: AdsBot-Google (and other Google ad crawlers) ignore `*` groups and obey
   * only groups that name them. Not RFC 9309 (§2.2.1 says obey `*`), so off by default.
   * @default false
   */
  ignoreGlobalGroups?: boolean;
}

/** `rfc`: RFC 9309, then Google's written spec where the RFC is silent. `google`: Google's C++ reference matcher. */
export type RobotsSemantics = 'rfc' | 'google';

export const ROBOTS_SEMANTICS: readonly RobotsSemantics[] = Object.freeze(['rfc', 'google']);

export interface RobotsMatcherOptions {
  /** Which reading of robots.txt answers the checks. @default 'rfc' */
  semantics?: RobotsSemantics;
}

/** True for a known semantics name; the CLI and the crawl options validate with it. */
export function isRobotsSemantics(value: unknown): value is RobotsSemantics {
  return value === 'rfc' || value === 'google';
}

interface CompiledRule {
  allow: boolean;
  lineNo: number;
  pattern: PathPattern;
  /** The pattern's literal second octet (after `/`), -1 when it is a wildcard or absent, -2 when it can never match. */
  key: number;
}

/**
 * An agent's rules sorted by precedence, plus per-second-octet subsets built on demand: a path
 * `/x…` needs only the rules starting `/x` or `/*`, which in a 300-rule file is a handful.
 */
class RuleSet {
  private readonly byKey = new Map<number, readonly CompiledRule[]>();
  constructor(readonly all: readonly CompiledRule[]) {}

  candidates(path: string): readonly CompiledRule[] {
    const c = path.length > 1 ? path.charCodeAt(1) : -3;
    let list = this.byKey.get(c);
    if (list === undefined) {
      list = this.all.filter((r) => r.key === -1 || r.key === c);
      this.byKey.set(c, list);
    }
    return list;
  }
}

function keyOf(pattern: string): number {
  const c0 = pattern.charCodeAt(0);
  if (c0 === 42 /* * */) return -1;
  if (c0 !== 47 /* / */) return -2; // RFC 9309 §2.2: a path starts with `/`; this never matches
  if (pattern.length < 2) return -1;
  const c1 = pattern.charCodeAt(1);
  if (c1 === 42 || (c1 === 36 && pattern.length === 2)) return -1; // `/*…` or `/$`
  return c1;
}

interface AgentGroup {
  global: boolean;
  tokens: readonly string[];
  rules: readonly RobotsRule[];
  /** Line of the group's first user-agent line. */
  lineNo: number;
}

/** A rule as one reading compares it: its pattern spelled as that reading spells it. */
export interface AppliedRule {
  directive: RobotsRule['directive'];
  /** `rfc`: RobotsRule.pattern; `google`: the value escaped as the reference escapes it (no `/` added). */
  pattern: string;
  lineNo: number;
}

/** The groups one reading applies to a crawler, merged (RobotsMatcher.appliedGroups). */
export interface AppliedGroups {
  /** Line of the first user-agent line of the first group. */
  groupLine: number;
  rules: readonly AppliedRule[];
}

const ROBOTS_TXT_PATH = '/robots.txt';

/** The Allow values Google's reference also reads as their directory: last segment starting `index.htm`. */
const INDEX_PAGE = '/index.htm';

/** Lower-cases ASCII letters only, as the reference's case-insensitive comparison does. */
function asciiLower(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

export class RobotsMatcher {
  readonly semantics: RobotsSemantics;
  private readonly google: boolean;
  private readonly groups: readonly AgentGroup[];
  private globalRules: RuleSet | null = null;
  private readonly byAgent = new Map<string, RuleSet | null>();
  private lastAgent: string | null = null; // most checks repeat the previous agent: skip the lookup
  private lastRules: RuleSet | null = null;
  private readonly patterns = new Map<string, PathPattern>();

  private constructor(groups: AgentGroup[], semantics: RobotsSemantics) {
    this.groups = groups;
    this.semantics = semantics;
    this.google = semantics === 'google';
  }

  /**
   * Reads the groups' user agents once; each agent's rules are compiled and sorted on its first
   * check, so a crawl that asks about a few agents never compiles the rest of a large file.
   */
  static compile(txt: RobotsTxt, options: RobotsMatcherOptions = {}): RobotsMatcher {
    const semantics = options.semantics ?? 'rfc';
    if (!isRobotsSemantics(semantics)) throw new TypeError(`semantics must be 'rfc' or 'google', got ${JSON.stringify(semantics)}`);
    if (semantics === 'google') return new RobotsMatcher(googleGroups(txt), semantics);
    const groups: AgentGroup[] = txt.groups.map((g) => agentGroup(g.userAgents, g.rules, g.lineNo, false));
    return new RobotsMatcher(groups, semantics);
  }

  /** Merged, compiled and sorted rules of some groups. */
  private compileRules(groups: readonly AgentGroup[]): RuleSet {
    const out: CompiledRule[] = [];
    for (const g of groups) {
      for (const r of g.rules) {
        const allow = r.directive === 'allow';
        const pattern = this.google ? escapeGooglePattern(r.octets) : r.pattern;
        if (pattern.length === 0) continue; // `disallow:` with no path restricts nothing
        out.push(this.rule(allow, r.lineNo, pattern));
        if (this.google && allow) {
          // Google's reference: an Allow of `…/index.htm…` that does not match tries `…/$` instead.
          // That alternative is shorter than the value, so adding it as its own rule decides the same.
          const slash = pattern.lastIndexOf('/');
          if (slash !== -1 && pattern.startsWith(INDEX_PAGE, slash)) out.push(this.rule(true, r.lineNo, pattern.slice(0, slash + 1) + '$'));
        }
      }
    }
    return new RuleSet(out.sort((a, b) => b.pattern.priority - a.pattern.priority || Number(b.allow) - Number(a.allow) || a.lineNo - b.lineNo));
  }

  private rule(allow: boolean, lineNo: number, pattern: string): CompiledRule {
    let p = this.patterns.get(pattern);
    if (!p) this.patterns.set(pattern, (p = compilePattern(pattern)));
    return { allow, lineNo, pattern: p, key: keyOf(pattern) };
  }

  /**
   * The rules that apply to a crawler: its own merged groups, or null when no group names it
   * (then the `*` groups apply).
   */
  private rulesFor(userAgent: string): RuleSet | null {
    if (userAgent === this.lastAgent) return this.lastRules;
    const key = this.agentKey(userAgent);
    let rules = this.byAgent.get(key);
    if (rules === undefined) {
      const specific = this.groupsNaming(key);
      rules = specific.length === 0 ? null : this.compileRules(specific);
      if (this.byAgent.size > 1024) this.byAgent.clear();
      this.byAgent.set(key, rules);
    }
    this.lastAgent = userAgent;
    this.lastRules = rules;
    return rules;
  }

  /** The caller's user agent folded as this reading folds it. */
  private agentKey(userAgent: string): string {
    return this.google ? asciiLower(userAgent) : userAgent.toLowerCase();
  }

  /** The groups that name a crawler, by its folded key (agentKey). */
  private groupsNaming(key: string): AgentGroup[] {
    // Google's reference compares the caller's whole string: `Foo Bar` is not the token `foo`.
    return key.length === 0 && !this.google ? [] : this.groups.filter((g) => g.tokens.includes(key));
  }

  /**
   * The groups this reading applies, for `robots_agent_access` (agent-access.ts): with a product
   * token, the groups that name it (the choice check() makes); with null, the `*` groups. Null when
   * there are none. The rules are spelled as this reading compares them, so levels computed from
   * them agree with this reading's verdicts (`google`: a value without a leading `/` stays so and
   * can never match; a UTF-16 body has no groups).
   */
  appliedGroups(userAgent: string | null): AppliedGroups | null {
    const groups = userAgent === null ? this.groups.filter((g) => g.global) : this.groupsNaming(this.agentKey(userAgent));
    if (groups.length === 0) return null;
    const rules: AppliedRule[] = [];
    for (const g of groups) {
      for (const r of g.rules) rules.push({ directive: r.directive, pattern: this.google ? escapeGooglePattern(r.octets) : r.pattern, lineNo: r.lineNo });
    }
    return { groupLine: groups[0]!.lineNo, rules };
  }

  private global(): RuleSet {
    return (this.globalRules ??= this.compileRules(this.groups.filter((g) => g.global)));
  }

  /** May `userAgent` (a product token, e.g. `Googlebot`) fetch `urlOrPath` (absolute URL or `/path?query`)? */
  check(userAgent: string, urlOrPath: string, options?: RobotsCheckOptions): RobotsCheck {
    if (this.google) return this.decide(userAgent, urlPathOctets(pathFromUrl(urlOrPath)), options);
    const path = normaliseUrlPath(pathFromUrl(urlOrPath));
    if (path === ROBOTS_TXT_PATH) return { allowed: true, matchedLine: null };
    return this.decide(userAgent, path, options);
  }

  /** The deciding rule for a path already in the reading's form. */
  private decide(userAgent: string, path: string, options: RobotsCheckOptions | undefined): RobotsCheck {
    const own = this.rulesFor(userAgent);
    const set = own ?? (options?.ignoreGlobalGroups ? null : this.global());
    if (set === null) return { allowed: true, matchedLine: null };
    for (const r of set.candidates(path)) {
      if (r.pattern.matches(path)) return { allowed: r.allow, matchedLine: r.lineNo };
    }
    return { allowed: true, matchedLine: null };
  }

  /** True when some group names this crawler (else it falls back to `*`). */
  hasGroupFor(userAgent: string): boolean {
    return this.rulesFor(userAgent) !== null;
  }
}


/** A group's agents read once: `*` (or `* …`), and the product tokens of the others. */
function agentGroup(userAgents: readonly string[], rules: readonly RobotsRule[], lineNo: number, google: boolean): AgentGroup {
  const tokens: string[] = [];
  let global = false;
  for (const ua of userAgents) {
    if (isGlobalAgent(ua)) global = true;
    else {
      const t = productTokenOf(ua);
      // The reference compares the extracted token with the caller's string even when it is empty.
      if (t.length > 0 || google) tokens.push(t);
    }
  }
  return { global, tokens, rules, lineNo };
}

/** Google's groups: none from a UTF-16 body (the reference reads its octets, and NULs end its lines). */
function googleGroups(txt: RobotsTxt): AgentGroup[] {
  return txt.utf16 ? [] : txt.groups.map((g) => agentGroup(g.userAgents, g.rules, g.lineNo, true));
}
