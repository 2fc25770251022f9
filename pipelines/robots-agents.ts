import { agentAccess } from '../src/parse/robots/agent-access.js';
import { usageSignals } from '../src/parse/robots/usage-signals.js';
import type { RobotsPolicy, RobotsTxt } from '../src/parse/robots/index.js';
import type { AgentsCatalogue } from '../src/resolve/agents-catalogue.js';
import { issueRow } from '../src/tables/rows.js';
import type { IssueCounts } from './body-parsers.js';
import type { Rows } from './context.js';

/**
 * A robots.txt's answers for the agents catalogue and its usage preferences, as rows: the one
 * place both the crawl (robots-job.ts) and `adsnap reparse` write `robots_agent_access`,
 * `robots_usage_signals` and the usage lines' `parse_issues` (docs/reference/ai-crawlers.md).
 * Returns the issues' counts, which belong to the file's `files.errors` / `files.warnings`.
 */
export function emitAgentRows(out: Rows, host: string, txt: RobotsTxt | null, policy: RobotsPolicy, agents: readonly string[]): IssueCounts {
  for (const a of agentAccess(policy, txt, agents)) {
    out.emit('robots_agent_access', { host, user_agent: a.userAgent, blocked: a.blocked, via: a.via, group_line: a.groupLine });
  }
  const counts: IssueCounts = { errors: 0, warnings: 0 };
  if (!txt) return counts;
  const { signals, issues } = usageSignals(txt);
  for (const s of signals) {
    out.emit('robots_usage_signals', { host, directive: s.directive, group_no: s.groupNo, user_agents: s.userAgents, path: s.path, key: s.key, value: s.value, line_no: s.lineNo });
  }
  for (const i of issues) {
    if (i.severity === 'error') counts.errors++;
    else if (i.severity === 'warning') counts.warnings++;
    out.emit('parse_issues', issueRow(host, 'robots.txt', i));
  }
  return counts;
}

/** The `agents_catalogue` rows: the catalogue a night used, written once per run. */
export function emitCatalogue(out: Rows, c: AgentsCatalogue): void {
  for (const a of c.agents) {
    out.emit('agents_catalogue', { user_agent: a.token, operator: a.operator, purpose: a.purpose, catalogue_version: c.version, catalogue_date: c.date, catalogue_sha256: c.sha256 });
  }
}
