/**
 * RFC 9309 §2.3.1 access results: what a crawler may do given how fetching /robots.txt went.
 *
 * | outcome                                   | policy        | why |
 * |-------------------------------------------|---------------|-----|
 * | 2xx (after following redirects)           | rules         | §2.3.1.1: follow the parseable rules |
 * | 3xx left unresolved, > 5 redirects         | allow_all     | §2.3.1.2: MAY assume unavailable; Google: "treat as 404" |
 * | 4xx (401, 403 and 429 too)                | allow_all     | §2.3.1.3: unavailable, MAY access anything |
 * | 5xx, network error, other status          | disallow_all  | §2.3.1.4: unreachable, MUST assume complete disallow |
 */
import { RobotsMatcher, type RobotsCheck, type RobotsCheckOptions, type RobotsMatcherOptions } from './robots-matcher.js';
import type { RobotsTxt } from './types.js';

export type RobotsHttpOutcome = { kind: 'http'; status: number } | { kind: 'unreachable' } | { kind: 'redirect_limit' };

export type RobotsAccess = 'rules' | 'allow_all' | 'disallow_all';

export type RobotsPolicy = { kind: 'rules'; matcher: RobotsMatcher } | { kind: 'allow_all' } | { kind: 'disallow_all' };

/** RFC 9309 §2.3.1: the access result for a fetch outcome (status after redirects were followed). */
export function robotsAccess(outcome: RobotsHttpOutcome): RobotsAccess {
  switch (outcome.kind) {
    case 'unreachable':
      return 'disallow_all'; // §2.3.1.4
    case 'redirect_limit':
      return 'allow_all'; // §2.3.1.2: more than five redirects MAY be taken as unavailable
    case 'http': {
      const s = outcome.status;
      if (s >= 200 && s <= 299) return 'rules'; // §2.3.1.1
      if (s >= 300 && s <= 399) return 'allow_all'; // a redirect without a usable target: unavailable
      if (s >= 400 && s <= 499) return 'allow_all'; // §2.3.1.3
      return 'disallow_all'; // §2.3.1.4: 5xx; anything else is not a usable answer either
    }
  }
}

/** The policy for a fetch: the parsed file's rules, read in `options.semantics`, when the access result is `rules`. */
export function robotsPolicy(outcome: RobotsHttpOutcome, txt: RobotsTxt | null, options?: RobotsMatcherOptions): RobotsPolicy {
  const access = robotsAccess(outcome);
  if (access === 'rules') return txt ? { kind: 'rules', matcher: RobotsMatcher.compile(txt, options) } : { kind: 'allow_all' };
  return { kind: access };
}

/** A policy from an already compiled matcher or a parsed file (2xx). */
export function rulesPolicy(source: RobotsMatcher | RobotsTxt): RobotsPolicy {
  return { kind: 'rules', matcher: source instanceof RobotsMatcher ? source : RobotsMatcher.compile(source) };
}

/** Checks a URL under a policy; `/robots.txt` itself is always allowed (RFC 9309 §2.2.2). */
export function checkPolicy(policy: RobotsPolicy, userAgent: string, urlOrPath: string, options?: RobotsCheckOptions): RobotsCheck {
  switch (policy.kind) {
    case 'rules':
      return policy.matcher.check(userAgent, urlOrPath, options);
    case 'allow_all':
      return { allowed: true, matchedLine: null };
    case 'disallow_all':
      return { allowed: isRobotsTxtUrl(urlOrPath), matchedLine: null };
  }
}

function isRobotsTxtUrl(urlOrPath: string): boolean {
  return /^(?:[a-z][a-z0-9+.-]*:\/\/[^/?#]*)?\/robots\.txt(?:[#]|$)/i.test(urlOrPath);
}
