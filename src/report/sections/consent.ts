/** The report's section '10. Consent signals beyond robots.txt' (view site_ai_consent; docs/reference/ai-signals.md): its figures. */
import type { SectionDef } from '../figure-types.js';
import { latest } from './nights.js';
import { consentByRankFigures } from './consent-rank.js';

export const consentSection: SectionDef = {
  key: 'consent',
  title: '10. Consent signals beyond robots.txt',
  intro:
    "What the listed sites say about AI use of their content besides the crawler rules: robots.txt's Content-Signal ai-train and RSL License lines, the W3C TDMRep reservation (/.well-known/tdmrep.json, or a tdm-reservation header), and llms.txt, from the view site_ai_consent (the latest night's rows, read once by the report's setup: report_consent). The robots.txt signals count among the sites whose robots.txt was read (its content seen); a TDM reservation among all listed sites; llms.txt among the sites asked for it (crawl --ai-signals). A night without --ai-signals sees a TDM reservation only in headers, and no llms.txt.",
  figures: [
    {
      key: 'consent.adoption',
      title: 'Adoption of each consent signal (latest night)',
      about:
        "Sites giving each signal and their share of the sites it could be seen on (asked). ai_agents_blocked_by_name: a robots.txt group naming an AI agent (purpose training, data, assistant or agent) blocks it fully; content_signal_ai_train_no: Content-Signal ai-train=no; tdm_reservation: TDM rights reserved for '/' (1); rsl_license: a License line; llms_txt: a Markdown llms.txt served.",
      sql: `WITH s AS (SELECT * FROM report_consent), a AS (
SELECT 1 AS o, 'ai_agents_blocked_by_name' AS signal, count(*) FILTER (WHERE ai_agents_blocked_by_name > 0) AS sites, count(ai_agents_blocked_by_name) AS asked FROM s
UNION ALL SELECT 2, 'content_signal_ai_train_no', count(*) FILTER (WHERE content_signal_ai_train = 'no'), count(ai_agents_blocked_by_name) FROM s
UNION ALL SELECT 3, 'tdm_reservation', count(*) FILTER (WHERE tdm_reservation = 1), count(*) FROM s
UNION ALL SELECT 4, 'rsl_license', count(rsl_license_url), count(ai_agents_blocked_by_name) FROM s
UNION ALL SELECT 5, 'llms_txt', count(*) FILTER (WHERE llms_txt), count(llms_txt) FROM s
)
SELECT signal, sites, asked, CASE WHEN asked > 0 THEN sites / asked END AS share FROM a ORDER BY o`,
      chart: { kind: 'hbar', x: 'share', y: 'signal', xTitle: 'Sites giving the signal (% of those asked)', yTitle: 'Signal', percent: true },
    },
    {
      key: 'consent.agreement',
      title: 'Do the opt-out signals agree? (latest night)',
      about:
        "For each pair of opt-out signals, among the sites whose robots.txt was read: the sites giving both, only the first, only the second. A site that reserves TDM rights but blocks no AI agent by name (only_a of tdm_reservation × ai_agents_blocked_by_name) says no in one place and nothing in the other; the reverse is only_b. ai_agent_blocked_fully: some AI agent is blocked fully, by name or through the '*' group (agent_sites): its only_a are the sites that reserve TDM rights yet let every AI crawler in.",
      sql: `WITH s AS (
SELECT c.tdm_reservation = 1 AS tdm, c.ai_agents_blocked_by_name > 0 AS named, c.content_signal_ai_train = 'no' AS train_no, c.rsl_license_url IS NOT NULL AS rsl,
       c.ai_agents_blocked_by_name > 0 OR a.blocked = 'full' AS any_full
FROM report_consent c JOIN agent_sites a ON a.snapshot_date = c.snapshot_date AND a.host = c.host
WHERE ${latest('a.snapshot_date')} AND c.ai_agents_blocked_by_name IS NOT NULL
), p AS (
SELECT 1 AS o, 'tdm_reservation' AS signal_a, 'ai_agents_blocked_by_name' AS signal_b, coalesce(tdm, false) AS a, named AS b FROM s
UNION ALL SELECT 2, 'tdm_reservation', 'content_signal_ai_train_no', coalesce(tdm, false), coalesce(train_no, false) FROM s
UNION ALL SELECT 3, 'content_signal_ai_train_no', 'ai_agents_blocked_by_name', coalesce(train_no, false), named FROM s
UNION ALL SELECT 4, 'rsl_license', 'ai_agents_blocked_by_name', rsl, named FROM s
UNION ALL SELECT 5, 'tdm_reservation', 'ai_agent_blocked_fully', coalesce(tdm, false), any_full FROM s
)
SELECT signal_a, signal_b, count(*) FILTER (WHERE a AND b) AS both, count(*) FILTER (WHERE a AND NOT b) AS only_a,
count(*) FILTER (WHERE b AND NOT a) AS only_b, count(*) FILTER (WHERE NOT a AND NOT b) AS neither, count(*) AS sites
FROM p GROUP BY ALL ORDER BY any_value(o)`,
    },
    ...consentByRankFigures,
  ],
};
