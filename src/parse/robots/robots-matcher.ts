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
 */
import { compilePattern, type PathPattern } from './path-pattern.js';
import { normaliseUrlPath } from './percent-encoding.js';
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
}

const ROBOTS_TXT_PATH = '/robots.txt';

export class RobotsMatcher {
  private readonly groups: readonly AgentGroup[];
  private globalRules: RuleSet | null = null;
  private readonly byAgent = new Map<string, RuleSet | null>();
  private lastAgent: string | null = null; // most checks repeat the previous agent: skip the lookup
  private lastRules: RuleSet | null = null;
  private readonly patterns = new Map<string, PathPattern>();

  private constructor(groups: AgentGroup[]) {
    this.groups = groups;
  }

  /**
   * Reads the groups' user agents once; each agent's rules are compiled and sorted on its first
   * check, so a crawl that asks about a few agents never compiles the rest of a large file.
   */
  static compile(txt: RobotsTxt): RobotsMatcher {
    const groups: AgentGroup[] = txt.groups.map((g) => {
      const tokens: string[] = [];
      let global = false;
      for (const ua of g.userAgents) {
        if (isGlobalAgent(ua)) global = true;
        else {
          const t = productTokenOf(ua);
          if (t.length > 0) tokens.push(t);
        }
      }
      return { global, tokens, rules: g.rules };
    });
    return new RobotsMatcher(groups);
  }

  /** Merged, compiled and sorted rules of some groups. */
  private compileRules(groups: readonly AgentGroup[]): RuleSet {
    const out: CompiledRule[] = [];
    for (const g of groups) {
      for (const r of g.rules) {
        if (r.pattern.length === 0) continue; // `disallow:` with no path restricts nothing
        let p = this.patterns.get(r.pattern);
        if (!p) this.patterns.set(r.pattern, (p = compilePattern(r.pattern)));
        out.push({ allow: r.directive === 'allow', lineNo: r.lineNo, pattern: p, key: keyOf(r.pattern) });
      }
    }
    return new RuleSet(out.sort((a, b) => b.pattern.priority - a.pattern.priority || Number(b.allow) - Number(a.allow) || a.lineNo - b.lineNo));
  }

  /**
   * The rules that apply to a crawler: its own merged groups, or null when no group names it
   * (then the `*` groups apply).
   */
  private rulesFor(userAgent: string): RuleSet | null {
    if (userAgent === this.lastAgent) return this.lastRules;
    const key = userAgent.toLowerCase();
    let rules = this.byAgent.get(key);
    if (rules === undefined) {
      // Google's reference compares the caller's whole string: `Foo Bar` is not the token `foo`.
      const specific = key.length === 0 ? [] : this.groups.filter((g) => g.tokens.includes(key));
      rules = specific.length === 0 ? null : this.compileRules(specific);
      if (this.byAgent.size > 1024) this.byAgent.clear();
      this.byAgent.set(key, rules);
    }
    this.lastAgent = userAgent;
    this.lastRules = rules;
    return rules;
  }

  private global(): RuleSet {
    return (this.globalRules ??= this.compileRules(this.groups.filter((g) => g.global)));
  }

  /** May `userAgent` (a product token, e.g. `Googlebot`) fetch `urlOrPath` (absolute URL or `/path?query`)? */
  check(userAgent: string, urlOrPath: string, options?: RobotsCheckOptions): RobotsCheck {
    const path = normaliseUrlPath(pathFromUrl(urlOrPath));
    if (path === ROBOTS_TXT_PATH) return { allowed: true, matchedLine: null };
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

