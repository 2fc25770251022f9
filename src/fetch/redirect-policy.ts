import { isWithin, rootDomain, toAsciiHost } from '../util/domain.js';
import type { FetchErrorCode } from './errors.js';
import { discard } from './exchange.js';
import { headerValue, type HopPolicy } from './hop.js';
import type { FetchKind } from './types.js';

/**
 * Redirects are followed by us, hop by hop, because each kind has its own rule and undici's
 * redirect interceptor knows none of them (docs/choices.md#http-client).
 *
 * - ads.txt / app-ads.txt (ads.txt 1.1 §3.1, spec-decisions): any number of redirects while
 *   the target stays inside the original root domain (PSL+1); exactly one redirect may leave
 *   it; any redirect after that is an error (`redirect_scope`). A loop or more than 10 hops is
 *   an error too.
 * - robots.txt (RFC 9309 §2.3.1.2): at least five consecutive redirects, across hosts; more →
 *   the file is "unavailable" (`redirect_limit`).
 * - sellers.json, store pages, the consent files (tdmrep.json, llms.txt, an RSL licence): ordinary
 *   redirects, bounded at 10.
 */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface RedirectPolicy {
  /** Most redirects followed in one chain. */
  readonly maxRedirects: number;
  /** Apply the ads.txt §3.1 root-domain scope rule. */
  readonly adsScope: boolean;
}

export const redirectPolicies: Readonly<Record<FetchKind, RedirectPolicy>> = {
  'ads.txt': { maxRedirects: 10, adsScope: true },
  'app-ads.txt': { maxRedirects: 10, adsScope: true },
  'robots.txt': { maxRedirects: 5, adsScope: false },
  'sellers.json': { maxRedirects: 10, adsScope: false },
  'buyers.json': { maxRedirects: 10, adsScope: false },
  store_page: { maxRedirects: 10, adsScope: false },
  // TDMRep §3.1: "a successful response … or a sequence of redirects that leads to" the file.
  'tdmrep.json': { maxRedirects: 10, adsScope: false },
  'llms.txt': { maxRedirects: 10, adsScope: false },
  rsl: { maxRedirects: 10, adsScope: false },
  // A home page commonly redirects to www. or a language path: followed like any page.
  home_page: { maxRedirects: 10, adsScope: false },
};

export interface RedirectState {
  readonly policy: RedirectPolicy;
  /** Host of the URL first requested (ASCII). */
  readonly originalHost: string;
  /** Its root domain (the host itself for IPs and bare suffixes); computed on the first redirect. */
  originalRoot: string | null;
  /** A redirect has already left the original root: no further redirect is allowed. */
  leftRoot: boolean;
  /** URLs requested so far (fragments dropped), for loop detection. */
  readonly seen: Set<string>;
  /** URLs redirected to, in order (the `fetches.redirects` column). */
  readonly chain: string[];
}

function key(u: URL): string {
  return u.href.split('#', 1)[0]!;
}

export function startRedirects(policy: RedirectPolicy, first: URL): RedirectState {
  return { policy, originalHost: toAsciiHost(first.hostname), originalRoot: null, leftRoot: false, seen: new Set([key(first)]), chain: [] };
}

export type RedirectDecision = { follow: URL } | { error: FetchErrorCode };

/**
 * Decides whether the redirect from `from` to `location` is followed. On `follow` the state
 * has recorded the hop; on `error` the chain ends with that code.
 */
export function decideRedirect(state: RedirectState, from: URL, location: string | null): RedirectDecision {
  if (!location) return { error: 'redirect_invalid' };
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    return { error: 'redirect_invalid' };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return { error: 'redirect_invalid' };
  target.hash = '';
  if (state.policy.adsScope && state.leftRoot) {
    // ads.txt 1.1 §3.1: "If the third party location returns a further redirect, the
    // advertising system SHOULD treat the response as an error."
    return { error: 'redirect_scope' };
  }
  const k = key(target);
  if (state.seen.has(k)) return { error: 'redirect_loop' };
  if (state.chain.length >= state.policy.maxRedirects) return { error: 'redirect_limit' };
  if (state.policy.adsScope) state.originalRoot ??= rootDomain(state.originalHost) ?? state.originalHost;
  if (state.originalRoot !== null && !isWithin(toAsciiHost(target.hostname), state.originalRoot)) {
    // ads.txt 1.1 §3.1: one-hop delegation of authority to a third-party web server.
    state.leftRoot = true;
  }
  state.seen.add(k);
  state.chain.push(target.href);
  return { follow: target };
}

/**
 * The redirect policy (hop.ts): follows the kind's redirects hop by hop; a redirect it refuses
 * ends the chain with the decision's code, keeping the redirect's status and headers for the
 * row. `redirects` and `attempts` of the answer cover the whole chain.
 */
export const followRedirects: HopPolicy = (next) => async (first) => {
  const state = startRedirects(redirectPolicies[first.kind], first.url);
  let hop = first;
  let attempts = 0;
  for (;;) {
    const sent = await next(hop);
    attempts += sent.attempts;
    const a = { ...sent, attempts, redirects: state.chain };
    if (a.response === null || a.status === null || !REDIRECT_STATUSES.has(a.status)) return a;
    await discard(a.response);
    const decision = decideRedirect(state, hop.url, headerValue(a.headers, 'location'));
    if ('error' in decision) return { ...a, response: null, error: decision.error };
    hop = { ...hop, url: decision.follow, attempt: 1 };
  }
};
