/** The report's section '6. robots.txt and AI crawlers': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { LATEST, latest } from './nights.js';

/** Chart filter of the AI-crawler figures: a crawler some robots.txt names (fully or partly, by its own group). */
const namedByASite = (r: Readonly<Record<string, unknown>>): boolean => Number(r.share_full_by_name ?? 0) > 0 || Number(r.share_partial_by_name ?? 0) > 0;
const NAMED_BY_NO_SITE = "no site's robots.txt names them, so only the '*' groups decide for them and every one of them has the same shares (see the table)";
/** Blocked levels in the order read (most blocked first), red to grey; 'unknown' (robots.txt not seen) grey. */
const BLOCKED_COLORS: Record<string, string> = { full: '#b91c1c', partial: '#f59e0b', none: '#d1d5db', unknown: '#6b7280' };

export const robotsSection: SectionDef = {
  key: 'robots',
  title: '6. robots.txt and AI crawlers',
  intro:
    "Per crawler of the agents catalogue the crawl recorded (table agents_catalogue; docs/reference/ai-crawlers.md), what the robots.txt of the listed sites says to it: the views agent_access_shares and ai_crawler_blocking, whose shares these are. Full: a disallow rule matches every path; partial: some path is disallowed; none: nothing is. By name: a group naming the crawler decided; through '*': no group names it and the '*' groups decided. Unknown: the robots.txt content was not seen (a bot wall, a 429, a 5xx, no answer), so the site said nothing; RFC 9309 §2.3.1 tells a crawler how to behave then (a 5xx or no answer: disallow all, 'unreachable'), not what the site chose. None: nothing is disallowed, or a 4xx said there is no robots.txt (§2.3.1.3, 'absent'). Shares are of the night's listed sites (their robots.txt row, files.via = 'root'); full, partial, none and unknown add up to 1.",
  figures: [
    {
      key: 'robots.agents',
      title: 'Sites blocking each crawler, fully or partly, by name or through * (latest night)',
      about:
        "View ai_crawler_blocking, one row per catalogue agent: the sites and the shares blocking it fully, partly, not at all, or unknown (robots.txt not seen; these four add up to 1), fully and partly by name or through '*', and the shares a crawler must treat as disallowing all (unreachable: 5xx or no answer, all unknown) or a 4xx said have none (absent). The chart draws the crawlers some robots.txt names (at most 30), their full share by name and through '*' apart; the others, decided by '*' alone, share one set of figures (the table).",
      sql: `SELECT user_agent, operator, purpose, sites, share_full, share_partial, share_none, share_unknown,
share_full_by_name, share_full_through_star, share_partial_by_name, share_partial_through_star, share_unreachable, share_absent
FROM ai_crawler_blocking WHERE ${LATEST}
ORDER BY share_full DESC, share_partial DESC, user_agent`,
      // Drawn: the crawlers some site names, fully blocked by name and through '*' apart. A crawler no site names is blocked only by
      // the '*' groups, the same share for every one of them: one bar each would be a wall of identical bars (the table has them).
      chart: {
        kind: 'hbar', x: 'share', y: 'user_agent', fold: ['share_full_by_name', 'share_full_through_star'], xTitle: 'Sites blocking it fully (% of listed sites)', yTitle: 'Crawler', percent: true,
        legend: { title: 'Blocked fully', labels: { share_full_by_name: 'by name', share_full_through_star: "through '*'" } },
        only: { keep: namedByASite, unit: 'crawlers', why: NAMED_BY_NO_SITE },
        top: { field: 'user_agent', n: 30 },
      },
    },
    {
      key: 'robots.access',
      title: 'How each crawler is answered: blocked level and way (latest night)',
      about:
        "View agent_access_shares: per catalogue agent, blocked level (full, partial, none, unknown) and way (own_group: by name; global_group: through '*'; no_group; unreachable; absent), the listed sites and their share. The chart stacks the shares of the crawlers some robots.txt names (at most 30, most blocked first).",
      sql: `SELECT s.user_agent, s.operator, s.purpose, s.blocked, s.via, s.sites, s.share
FROM agent_access_shares s
JOIN ai_crawler_blocking b ON b.snapshot_date = s.snapshot_date AND b.user_agent = s.user_agent
WHERE ${latest('s.snapshot_date')}
ORDER BY b.share_full DESC, b.share_partial DESC, s.user_agent, CASE s.blocked WHEN 'full' THEN 0 WHEN 'partial' THEN 1 WHEN 'none' THEN 2 ELSE 3 END, s.via`,
      chart: {
        kind: 'hbar', x: 'share', y: 'user_agent', color: 'blocked', xTitle: 'Listed sites (%)', yTitle: 'Crawler', percent: true, top: { field: 'user_agent', n: 30 },
        only: { keep: (r) => r.via === 'own_group', per: 'user_agent', unit: 'crawlers', why: NAMED_BY_NO_SITE },
        colors: BLOCKED_COLORS,
      },
    },
    {
      key: 'robots.purposes',
      title: 'Sites restricting AI and ad crawlers, by purpose: opt-outs, partial restrictions, unknown (latest night)',
      about:
        "View ai_crawler_blocking_by_purpose (and ai_crawler_blocking_by_operator, by operator): per catalogue purpose, each listed site's answer to the purpose's agents together. Opt-outs: full (every agent of the purpose blocked fully) and some_full (some of them blocked fully, not all); partial: no agent blocked fully, but some path disallowed (a restriction, not an opt-out); none: no agent restricted; unknown: robots.txt not seen. The five add up to 1; share_any_full = full + some_full. The chart stacks the five levels.",
      sql: `SELECT purpose, agents, sites, share_any_full, level, share FROM (
SELECT purpose, agents, sites, share_any_full,
  unnest(['full', 'some_full', 'partial', 'none', 'unknown']) AS level,
  unnest([share_full, share_some_full, share_partial, share_none, share_unknown]) AS share
FROM ai_crawler_blocking_by_purpose WHERE ${LATEST}
) ORDER BY share_any_full DESC, purpose, list_position(['full', 'some_full', 'partial', 'none', 'unknown'], level)`,
      chart: { kind: 'hbar', x: 'share', y: 'purpose', color: 'level', xTitle: 'Listed sites (%)', yTitle: 'Purpose', percent: true },
    },
    {
      key: 'robots.agents_over_time',
      title: 'Sites blocking each crawler, fully and partly, over time',
      about:
        "View ai_crawler_blocking per night and catalogue agent: the sites, the shares blocking it fully and partly, and how (by name or through '*'). The chart draws the full share of the 10 agents blocked fully by most sites on the latest night; the table and the CSV have every agent, partial shares included.",
      sql: `WITH latest AS (
SELECT user_agent, row_number() OVER (ORDER BY share_full DESC, share_partial DESC, user_agent) AS agent_rank
FROM ai_crawler_blocking WHERE ${LATEST}
)
SELECT b.snapshot_date, b.user_agent, b.operator, b.purpose, b.sites, b.share_full, b.share_partial, b.share_unknown,
b.share_full_by_name, b.share_full_through_star, b.share_partial_by_name, b.share_partial_through_star
FROM ai_crawler_blocking b LEFT JOIN latest l USING (user_agent)
WHERE in_window(b.snapshot_date)
ORDER BY l.agent_rank NULLS LAST, b.user_agent, b.snapshot_date`,
      chart: { kind: 'line', x: 'snapshot_date', y: 'share_full', color: 'user_agent', xTitle: 'Snapshot date', yTitle: 'Listed sites blocking it fully (%)', percent: true, top: { field: 'user_agent', n: 10 } },
      series: true,
    },
  ],
};
