/**
 * Verdicts for a fixed list of crawlers and paths: the rows of the `robots_verdicts` table.
 * The default agents are the search, ads and AI crawlers analysts ask about, plus adsnap's own
 * product token; the default paths are the site root and the two files adsnap fetches.
 */
import { productToken } from '../../util/product-token.js';
import { checkPolicy, type RobotsPolicy } from './access.js';

export const DEFAULT_VERDICT_AGENTS: readonly string[] = Object.freeze([
  'Googlebot',
  'Mediapartners-Google',
  'AdsBot-Google',
  'Google-Extended',
  'GPTBot',
  'ChatGPT-User',
  'OAI-SearchBot',
  'CCBot',
  'ClaudeBot',
  'anthropic-ai',
  'PerplexityBot',
  'Bytespider',
  'Applebot-Extended',
  'Amazonbot',
  'meta-externalagent',
  productToken,
]);

export const DEFAULT_VERDICT_PATHS: readonly string[] = Object.freeze(['/', '/ads.txt', '/app-ads.txt']);

export interface RobotsVerdict {
  userAgent: string;
  path: string;
  allowed: boolean;
  matchedLine: number | null;
  policy: RobotsPolicy['kind'];
}

/** One verdict per (agent, path), agents outer, in the order given. */
export function verdicts(policy: RobotsPolicy, agents: readonly string[] = DEFAULT_VERDICT_AGENTS, paths: readonly string[] = DEFAULT_VERDICT_PATHS): RobotsVerdict[] {
  const out: RobotsVerdict[] = [];
  for (const userAgent of agents) {
    for (const path of paths) {
      const { allowed, matchedLine } = checkPolicy(policy, userAgent, path);
      out.push({ userAgent, path, allowed, matchedLine, policy: policy.kind });
    }
  }
  return out;
}
