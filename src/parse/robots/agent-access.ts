/**
 * How far a site's robots.txt keeps a named crawler out, and why: the rows of the
 * `robots_agent_access` table (docs/reference/ai-crawlers.md).
 *
 * `blocked`, for the rules that apply to the crawler (RFC 9309 §2.2.1 group choice, as the
 * matcher makes it):
 * - `full`: a disallow rule that matches every path applies (its pattern is `/` or `*` followed
 *   only by `*`s: `/`, `/*`, `*`), and no allow rule with at least as many octets applies. Under
 *   §2.2.2's longest match, every path but /robots.txt is then disallowed. An unreachable
 *   robots.txt (5xx, network error: §2.3.1.4, complete disallow) is `full` too: what a crawler
 *   must do, not what the site chose. The views (sql/views.sql, agent_sites) give a site whose
 *   robots.txt content was not seen (5xx, no answer, a bot wall, a 429) the level `unknown`.
 * - `partial`: not `full`, and at least one disallow rule that can match a path applies (its
 *   pattern starts with `/` or `*`).
 * - `none`: no such disallow rule applies (an empty `Disallow:` restricts nothing), or
 *   robots.txt is absent (4xx: §2.3.1.3, allow all).
 * The test is on the rules as written, not on every URL: `Disallow: /$` alone is `partial`, an
 * `Allow: /x` that reopens nothing but `/x` makes a catch-all disallow `partial`.
 *
 * `via`: `own_group` (a group names the crawler's product token), `global_group` (no group names
 * it; the `*` groups apply), `no_group` (neither), `unreachable` (5xx / network error), `absent`
 * (4xx, or a redirect chain given up: §2.3.1.2, §2.3.1.3).
 *
 * Both the group choice and the rules come from the policy's matcher, so the levels follow the
 * reading it was compiled in (`rfc` or `google`, crawl --robots-semantics) and agree with that
 * reading's verdicts: in `google`, a value without a leading `/` or `*` matches nothing, the
 * priority of a rule is the length of its pattern as Google's reference escapes it, and a UTF-16
 * body has no groups (docs/reference/robots-semantics.md).
 *
 * The table stays small: a crawler that no group names gets exactly the `*` answer, so each host
 * has one row for `*` (what every such crawler gets) and one row per catalogue crawler that a
 * group names. 1M sites × 100 crawlers is about 1M rows plus the sites that name crawlers.
 */
import type { RobotsPolicy } from './access.js';
import type { AppliedRule } from './robots-matcher.js';
import type { RobotsTxt } from './types.js';

export type AgentBlocked = 'full' | 'partial' | 'none';
export type AgentVia = 'own_group' | 'global_group' | 'no_group' | 'unreachable' | 'absent';

/** The fallback row's user agent: what every crawler no group names gets. */
export const ANY_AGENT = '*';

export interface AgentAccess {
  /** A catalogue product token, or `*` for the fallback row. */
  userAgent: string;
  blocked: AgentBlocked;
  via: AgentVia;
  /** Line of the first user-agent line of the groups that apply (null when none applies). */
  groupLine: number | null;
}

/**
 * The `*` row, then one row per agent in `agents` that a group of the file names (in the order
 * given; duplicates, compared case-insensitively, once). `txt` is the parsed file when the policy
 * is `rules`; the groups and rules are read through the policy's matcher, in its reading.
 */
export function agentAccess(policy: RobotsPolicy, txt: RobotsTxt | null, agents: readonly string[]): AgentAccess[] {
  if (policy.kind === 'disallow_all') return [{ userAgent: ANY_AGENT, blocked: 'full', via: 'unreachable', groupLine: null }];
  if (policy.kind === 'allow_all' || txt === null) return [{ userAgent: ANY_AGENT, blocked: 'none', via: 'absent', groupLine: null }];
  const { matcher } = policy;
  const global = matcher.appliedGroups(null);
  const out: AgentAccess[] = [
    global === null
      ? { userAgent: ANY_AGENT, blocked: 'none', via: 'no_group', groupLine: null }
      : { userAgent: ANY_AGENT, blocked: blockedBy(global.rules), via: 'global_group', groupLine: global.groupLine },
  ];
  const seen = new Set<string>();
  for (const agent of agents) {
    const key = agent.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    // The matcher's own choice of "a group names this crawler" (§2.2.1), so the verdicts agree.
    const own = matcher.appliedGroups(agent);
    if (own === null) continue;
    out.push({ userAgent: agent, blocked: blockedBy(own.rules), via: 'own_group', groupLine: own.groupLine });
  }
  return out;
}

/** A pattern every path matches: `/` or `*` followed only by `*`s (normalised, so no `$` anchor). */
function matchesEveryPath(pattern: string): boolean {
  return /^(?:\/|\*)\**$/.test(pattern);
}

/** A pattern some path can match: every path starts with `/` (RFC 9309 §2.2), so it starts with `/` or `*`. */
function canMatch(pattern: string): boolean {
  return pattern.startsWith('/') || pattern.startsWith('*');
}

/**
 * The level for one merged rule set (see the file comment), with the patterns spelled as the
 * reading compares them (RobotsMatcher.appliedGroups).
 */
export function blockedBy(rules: readonly Pick<AppliedRule, 'directive' | 'pattern'>[]): AgentBlocked {
  let catchAll = -1;
  let anyDisallow = false;
  for (const r of rules) {
    if (r.directive !== 'disallow' || !canMatch(r.pattern)) continue;
    anyDisallow = true;
    if (matchesEveryPath(r.pattern)) catchAll = Math.max(catchAll, r.pattern.length);
  }
  if (!anyDisallow) return 'none';
  if (catchAll < 0) return 'partial';
  // §2.2.2: an allow rule at least as long wins wherever it matches (allow wins ties).
  const reopened = rules.some((r) => r.directive === 'allow' && canMatch(r.pattern) && r.pattern.length >= catchAll);
  return reopened ? 'partial' : 'full';
}
