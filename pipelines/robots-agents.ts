import { agentAccess } from '../src/parse/robots/agent-access.js';
import { usageSignals } from '../src/parse/robots/usage-signals.js';
import { licenseLines, type LicenseLine } from '../src/parse/robots/licenses.js';
import type { RobotsPolicy, RobotsTxt } from '../src/parse/robots/index.js';
import type { AgentsCatalogue } from '../src/resolve/agents-catalogue.js';
import { emitIssueRows, type IssueCounts } from './body-parsers.js';
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
  if (!txt) return { errors: 0, warnings: 0 };
  const { signals, issues } = usageSignals(txt);
  for (const s of signals) {
    out.emit('robots_usage_signals', { host, directive: s.directive, group_no: s.groupNo, user_agents: s.userAgents, path: s.path, key: s.key, value: s.value, line_no: s.lineNo });
  }
  return emitIssueRows(out, host, 'robots.txt', issues);
}

/**
 * `robots_licenses` rows of a robots.txt's `License:` lines (RSL 1.0) and their issues, for the
 * crawl and `adsnap reparse` alike; `robotsUrl` is where the body was read (relative values
 * resolve against it). Returns the lines (the crawl fetches a same-host licence with --ai-signals).
 */
export function emitLicenses(out: Rows, host: string, txt: RobotsTxt | null, robotsUrl: string): IssueCounts & { licenses: LicenseLine[] } {
  if (!txt) return { errors: 0, warnings: 0, licenses: [] };
  const { licenses, issues } = licenseLines(txt, robotsUrl, host);
  for (const l of licenses) out.emit('robots_licenses', { host, url: l.url, resolved_url: l.resolvedUrl, same_host: l.sameHost, line_no: l.lineNo });
  return { ...emitIssueRows(out, host, 'robots.txt', issues), licenses };
}

/** The `agents_catalogue` rows: the catalogue a night used, written once per run. */
export function emitCatalogue(out: Rows, c: AgentsCatalogue): void {
  for (const a of c.agents) {
    out.emit('agents_catalogue', {
      user_agent: a.token,
      operator: a.operator,
      purpose: a.purpose,
      catalogue_version: c.version,
      catalogue_date: c.date,
      catalogue_sha256: c.sha256,
      fetches_pages: a.fetchesPages,
      controls: a.controls,
      controls_source: a.controlsSource === null ? null : (c.sourceUrls[a.controlsSource] ?? null),
    });
  }
}
