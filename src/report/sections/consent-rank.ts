/**
 * The consent section's figures by cumulative rank bucket (top 1k / 10k / 100k / 1M, as the
 * adoption section's top-N figure): the home page's signals beside the files' (crawl
 * --ai-signals; docs/reference/ai-signals.md#the-home-page), the opt-outs a CDN's managed
 * robots.txt block wrote, and AI-crawler blocking in the Web Almanac's terms.
 */
import type { FigureDef } from '../figure-types.js';
import { latest } from './nights.js';

/** The latest night's listed sites (site_ai_consent's rows, read once by the setup: report_consent) with their rank, once per top-N bound they fall within. */
const RANKED = `ranked AS (
SELECT c.*, b.top_n FROM report_consent c
JOIN (SELECT snapshot_date, target, min(rank) AS rank FROM targets WHERE target_kind = 'domain' AND ${latest('snapshot_date')} GROUP BY ALL) t ON t.snapshot_date = c.snapshot_date AND t.target = c.host
JOIN (SELECT unnest(rank_top_n()) AS top_n) b ON t.rank <= b.top_n
)`;

/**
 * Per site: AI crawlers (purpose training, data, assistant or agent) its own groups block fully,
 * split into crawlers that fetch pages and tokens that fetch nothing (agents_catalogue.fetches_pages),
 * and how many of those groups stand inside a generator's managed block (robots_managed_blocks).
 */
const OPT_OUTS = `blocks AS (
SELECT snapshot_date, host, list(struct_pack(b := begin_line, e := coalesce(end_line, 2147483647))) AS ranges FROM robots_managed_blocks GROUP BY ALL
), optouts AS (
SELECT a.snapshot_date, a.host,
  count(*) FILTER (WHERE k.fetches_pages IS NOT FALSE) AS crawlers,
  count(*) FILTER (WHERE k.fetches_pages = false) AS tokens,
  count(*) FILTER (WHERE k.fetches_pages IS NOT FALSE AND len(list_filter(m.ranges, x -> a.group_line BETWEEN x.b AND x.e)) > 0) AS crawlers_in_managed,
  bool_or(a.user_agent = 'GPTBot') AS gptbot_blocked
FROM (SELECT snapshot_date, host, user_agent, group_line FROM robots_agent_access WHERE blocked = 'full' AND via = 'own_group') a
JOIN (SELECT snapshot_date, user_agent, fetches_pages FROM agents_catalogue WHERE purpose IN ('training', 'data', 'assistant', 'agent')) k ON k.snapshot_date = a.snapshot_date AND k.user_agent = a.user_agent
LEFT JOIN blocks m ON m.snapshot_date = a.snapshot_date AND m.host = a.host
WHERE ${latest('a.snapshot_date')}
GROUP BY ALL
)`;

export const consentByRankFigures: readonly FigureDef[] = [
  {
    key: 'consent.page_by_rank',
    title: 'Consent signals on the home page beside those in files, top N (latest night)',
    about:
      "Per cumulative rank bucket (the listed sites ranked N or better), each signal's sites and their share of the sites it could be seen on (asked). level 'page': the home page / read with crawl --ai-signals (asked: its head was read, or its answer seen); noai / noimageai: a head robots meta tag or an X-Robots-Tag addressed to every agent; content_usage: a Content-Usage header; tdm_reservation: a TDMRep meta tag (or the page's header) saying 1; rsl_link: an RSL licence linked from the head or a Link header. level 'file': the signals of the adoption figure (robots.txt, tdmrep.json, llms.txt). A night without --ai-signals asks no page: its page rows have asked 0.",
    sql: `WITH ${RANKED}, a AS (
SELECT top_n, 1 AS o, 'page' AS level, 'noai' AS signal, count(*) FILTER (WHERE page_noai) AS sites, count(page_noai) AS asked FROM ranked GROUP BY ALL
UNION ALL SELECT top_n, 2, 'page', 'noimageai', count(*) FILTER (WHERE page_noimageai), count(page_noimageai) FROM ranked GROUP BY ALL
UNION ALL SELECT top_n, 3, 'page', 'content_usage', count(page_content_usage), count(page_status) FROM ranked GROUP BY ALL
UNION ALL SELECT top_n, 4, 'page', 'tdm_reservation', count(*) FILTER (WHERE trim(page_tdm_reservation) = '1'), count(page_status) FROM ranked GROUP BY ALL
UNION ALL SELECT top_n, 5, 'page', 'rsl_link', count(page_rsl_license_url), count(page_status) FROM ranked GROUP BY ALL
UNION ALL SELECT top_n, 6, 'file', 'ai_agents_blocked_by_name', count(*) FILTER (WHERE ai_agents_blocked_by_name > 0), count(ai_agents_blocked_by_name) FROM ranked GROUP BY ALL
UNION ALL SELECT top_n, 7, 'file', 'content_signal_ai_train_no', count(*) FILTER (WHERE content_signal_ai_train = 'no'), count(ai_agents_blocked_by_name) FROM ranked GROUP BY ALL
UNION ALL SELECT top_n, 8, 'file', 'tdm_reservation', count(*) FILTER (WHERE tdm_reservation = 1), count(*) FROM ranked GROUP BY ALL
UNION ALL SELECT top_n, 9, 'file', 'rsl_license', count(rsl_license_url), count(ai_agents_blocked_by_name) FROM ranked GROUP BY ALL
UNION ALL SELECT top_n, 10, 'file', 'llms_txt', count(*) FILTER (WHERE llms_txt), count(llms_txt) FROM ranked GROUP BY ALL
)
SELECT top_n, level, signal, sites, asked, CASE WHEN asked > 0 THEN sites / asked END AS share FROM a ORDER BY top_n, o`,
  },
  {
    key: 'consent.managed_optouts',
    title: "AI opt-outs written by a CDN's managed robots.txt block, top N (latest night)",
    about:
      "Per cumulative rank bucket: the sites whose robots.txt was read, those with a generator's block (robots_managed_by, e.g. Cloudflare's managed robots.txt), the sites blocking some AI crawler that fetches pages fully by name (an opt-out), and of those the sites where every such crawler is blocked by a group inside the managed block (written_by_block: one setting of the CDN, not a hand-written line) or some is (partly_by_block). share_by_block = written_by_block / opt_outs.",
    sql: `WITH ${RANKED}, ${OPT_OUTS}
SELECT r.top_n, count(r.ai_agents_blocked_by_name) AS robots_read, count(r.robots_managed_by) AS managed_block,
  count(*) FILTER (WHERE o.crawlers > 0) AS opt_outs,
  count(*) FILTER (WHERE o.crawlers > 0 AND o.crawlers_in_managed = o.crawlers) AS written_by_block,
  count(*) FILTER (WHERE o.crawlers_in_managed > 0 AND o.crawlers_in_managed < o.crawlers) AS partly_by_block,
  CASE WHEN count(*) FILTER (WHERE o.crawlers > 0) > 0 THEN count(*) FILTER (WHERE o.crawlers > 0 AND o.crawlers_in_managed = o.crawlers) / count(*) FILTER (WHERE o.crawlers > 0) END AS share_by_block
FROM ranked r LEFT JOIN optouts o ON o.snapshot_date = r.snapshot_date AND o.host = r.host
GROUP BY ALL ORDER BY r.top_n`,
  },
  {
    key: 'consent.ai_blocking_by_rank',
    title: 'AI-crawler blocking by rank, top N (latest night)',
    about:
      "Per cumulative rank bucket, among the sites whose robots.txt was read: gptbot_named, a group names GPTBot (the Web Almanac 2025's measure: GPTBot named in robots.txt, 20.9% of the top 1k and 3.6% of the top 1M); gptbot_blocked, that group blocks it fully; ai_crawler_blocked, some AI crawler that fetches pages is blocked fully by name; tokens_only, the site blocks by name only tokens that fetch nothing (Google-Extended, Applebot-Extended): it keeps no operator's crawler out and is not counted in ai_crawler_blocked. Shares are of robots_read.",
    sql: `WITH ${RANKED}, ${OPT_OUTS}, named AS (
SELECT DISTINCT snapshot_date, host FROM robots_agent_access WHERE user_agent = 'GPTBot' AND via = 'own_group' AND ${latest('snapshot_date')}
)
SELECT top_n, robots_read, gptbot_named, gptbot_blocked, ai_crawler_blocked, tokens_only,
  CASE WHEN robots_read > 0 THEN gptbot_named / robots_read END AS share_gptbot_named,
  CASE WHEN robots_read > 0 THEN ai_crawler_blocked / robots_read END AS share_ai_crawler_blocked,
  CASE WHEN robots_read > 0 THEN tokens_only / robots_read END AS share_tokens_only
FROM (
SELECT r.top_n, count(r.ai_agents_blocked_by_name) AS robots_read,
  count(n.host) FILTER (WHERE r.ai_agents_blocked_by_name IS NOT NULL) AS gptbot_named,
  count(*) FILTER (WHERE o.gptbot_blocked) AS gptbot_blocked,
  count(*) FILTER (WHERE o.crawlers > 0) AS ai_crawler_blocked,
  count(*) FILTER (WHERE o.tokens > 0 AND o.crawlers = 0) AS tokens_only
FROM ranked r
LEFT JOIN optouts o ON o.snapshot_date = r.snapshot_date AND o.host = r.host
LEFT JOIN named n ON n.snapshot_date = r.snapshot_date AND n.host = r.host
GROUP BY ALL
) ORDER BY top_n`,
  },
];
