/**
 * The figures the synthetic web is calibrated from. Each constant names its source: a corpus file
 * and how it was computed by `scripts/calibrate-simweb.ts` (run 2026-11-22 on the shared corpus),
 * or, where the corpus cannot tell, the assumption made. Shares are fractions in [0, 1].
 */

/**
 * Share of root domains that serve an ads.txt at all.
 * Source: lists/top10000-domains-2019.txt ∩ lists/iab-adstxt-domains-2018-02-13.txt: 28.3 % of the
 * top 1k and 21.1 % of ranks 1k–10k appear in the IAB crawler's 2018 ads.txt list;
 * lists/bradlucas-domains-{with,without}-ads-txt.txt gives 41 % of a 2017 top 100.
 * Assumption: adoption grew since 2018 (the IAB list is a 2018 lower bound), so we use 45 % for
 * the top 1k, 35 % below. A share of these "have a file" hosts then fail in realistic ways
 * (ADS_OUTCOME_WEIGHTS).
 */
export const ADS_TXT_SHARE_TOP1K = 0.45;
export const ADS_TXT_SHARE_REST = 0.35;

/**
 * Outcome of GET /ads.txt for a host that "has" a file (weights, need not sum to 1).
 * Assumption (the corpus holds only files that were served correctly): soft-404 HTML, wrong
 * Content-Type, managed-ads.txt redirects and server errors are common in crawls; these weights
 * make each visible in a 10k-host crawl. Hosts without a file mostly answer 404, some soft-404.
 */
export const ADS_OUTCOME_WEIGHTS = {
  ok: 0.78,
  wrong_content_type: 0.04,
  redirect_out: 0.06, // one hop to a managed-ads.txt host: valid (ads.txt 1.1 §3.1)
  redirect_out_twice: 0.01, // the managed host redirects again: redirect_error
  placeholder: 0.01,
  empty: 0.02,
  forbidden: 0.02,
  server_error: 0.03,
  utf16: 0.005,
  invalid_utf8: 0.005,
} as const;
export const NO_ADS_OUTCOME_WEIGHTS = { not_found: 0.82, soft_404: 0.14, forbidden: 0.02, server_error: 0.02 } as const;

/**
 * Records per ads.txt file: quantiles of the data-record count over the 95 served files in
 * adstxt/ (excluding `@date` history and `*-fragment-*`): p10 1, p25 1, p50 69, p75 171, p90 575,
 * p99 2052. Sampled log-uniformly between neighbouring quantiles.
 */
export const ADS_RECORDS_QUANTILES: ReadonlyArray<readonly [number, number]> = [
  [0, 1], [0.25, 1], [0.5, 69], [0.75, 171], [0.9, 575], [0.99, 2052], [1, 4000],
];
/** Same over the 62 served app-ads/ files: p25 1, p50 1, p75 231, p90 1291, p99 10532. */
export const APP_ADS_RECORDS_QUANTILES: ReadonlyArray<readonly [number, number]> = [
  [0, 1], [0.5, 1], [0.75, 231], [0.9, 1291], [0.99, 10532], [1, 12000],
];

/** adstxt/: 15.1 % of records are DIRECT, 58.4 % carry a certification authority id. app-ads/: 9.4 %, 53.6 %. */
export const DIRECT_SHARE = 0.151;
export const CERT_SHARE = 0.584;
export const APP_DIRECT_SHARE = 0.094;
export const APP_CERT_SHARE = 0.536;
/** adstxt/: 3.1 % of lines are comments. */
export const COMMENT_LINE_SHARE = 0.031;

/**
 * Share of files carrying each variable. adstxt/: OWNERDOMAIN 37.9 %, MANAGERDOMAIN 31.6 %,
 * CONTACT 3.2 %, SUBDOMAIN 1.1 %, INVENTORYPARTNERDOMAIN 1.1 %. app-ads/: INVENTORYPARTNERDOMAIN 4.8 %.
 * SUBDOMAIN and INVENTORYPARTNERDOMAIN are raised (assumption) to 5 % so that a 1k-host crawl
 * exercises the referral rules on dozens of hosts rather than one.
 */
export const VARIABLE_SHARE = { ownerdomain: 0.379, managerdomain: 0.316, contact: 0.032, subdomain: 0.05, inventorypartnerdomain: 0.05 } as const;

/** MANIFEST.tsv notes for adstxt/: 2.1 % UTF-8 BOM, 4.2 % CRLF, 23.2 % no final newline. */
export const BOM_SHARE = 0.021;
export const CRLF_SHARE = 0.042;
export const NO_FINAL_NEWLINE_SHARE = 0.232;
/** Assumption: a few lines per hundred files are malformed (missing fields, bad relationship). */
export const MALFORMED_LINE_SHARE = 0.01;

/**
 * Ad-system popularity: share of all records naming each ad system (field 1), top 40, adstxt/.
 * The tail beyond these is spread over synthetic small ad systems (`AD_SYSTEM_TAIL_SHARE`).
 */
export const WEB_AD_SYSTEMS: ReadonlyArray<readonly [string, number]> = [
  ['pubmatic.com', 0.0817], ['rubiconproject.com', 0.0663], ['appnexus.com', 0.0619], ['google.com', 0.0556],
  ['openx.com', 0.051], ['freewheel.tv', 0.0437], ['indexexchange.com', 0.0367], ['smartadserver.com', 0.0344],
  ['spotxchange.com', 0.0229], ['improvedigital.com', 0.0225], ['spotx.tv', 0.0219], ['yieldlab.net', 0.0205],
  ['contextweb.com', 0.0198], ['xandr.com', 0.0195], ['yahoo.com', 0.0193], ['advertising.com', 0.0178],
  ['outbrain.com', 0.0172], ['video.unrulymedia.com', 0.016], ['adform.com', 0.0158], ['rhythmone.com', 0.0154],
  ['lijit.com', 0.0124], ['triplelift.com', 0.0106], ['tremorhub.com', 0.0088], ['sharethrough.com', 0.0083],
  ['onetag.com', 0.0083], ['media.net', 0.0081], ['loopme.com', 0.0081], ['sovrn.com', 0.008],
  ['smaato.com', 0.0077], ['emxdgt.com', 0.0072], ['smartstream.tv', 0.0071], ['teads.tv', 0.0065],
  ['lkqd.net', 0.0065], ['stroeer.com', 0.0059], ['themediagrid.com', 0.0055], ['aps.amazon.com', 0.0054],
  ['criteo.com', 0.0054], ['33across.com', 0.0051], ['districtm.io', 0.0049], ['inmobi.com', 0.0047],
];
/** Same over app-ads/. */
export const APP_AD_SYSTEMS: ReadonlyArray<readonly [string, number]> = [
  ['pubmatic.com', 0.0722], ['rubiconproject.com', 0.0513], ['applovin.com', 0.0355], ['appnexus.com', 0.0338],
  ['video.unrulymedia.com', 0.0315], ['smartadserver.com', 0.0275], ['openx.com', 0.0261], ['improvedigital.com', 0.023],
  ['inmobi.com', 0.0226], ['lijit.com', 0.0216], ['sharethrough.com', 0.0189], ['google.com', 0.0187],
  ['freewheel.tv', 0.018], ['contextweb.com', 0.0173], ['loopme.com', 0.0158], ['pubnative.net', 0.0153],
  ['conversantmedia.com', 0.0145], ['media.net', 0.0142], ['triplelift.com', 0.0126], ['onetag.com', 0.0126],
  ['smaato.com', 0.0115], ['themediagrid.com', 0.0115], ['indexexchange.com', 0.0114], ['xandr.com', 0.0099],
  ['yandex.com', 0.0086], ['bidmachine.io', 0.0084], ['adform.com', 0.0074], ['rhythmone.com', 0.0073],
];
/** adstxt/: the top 40 cover ~75 % of records; the rest goes to synthetic long-tail ad systems. */
export const AD_SYSTEM_TAIL_SHARE = 0.25;
/** Number of synthetic long-tail ad systems (`adx-<word>-<k>.com`), each serving a sellers.json. */
export const AD_SYSTEM_TAIL_COUNT = 60;

/**
 * Public suffix mix of root domains: top 20 suffixes of lists/top-1m-2025-02-tranco-like-first-50k.csv
 * (tldts, private section included): com 49.6 %, net 6.9 %, org 4.5 %, ru 3.8 %, io 2.1 %, de 1.7 %,
 * edu 1.1 %, co.uk 0.9 %, com.br 0.9 %, fr 0.8 %, jp 0.8 % …; the remaining ~17 % is spread over
 * the listed ones plus `github.io` (private section, assumption: exercises PSL private rules).
 */
export const SUFFIXES: ReadonlyArray<readonly [string, number]> = [
  ['com', 0.496], ['net', 0.0692], ['org', 0.045], ['ru', 0.0383], ['io', 0.0211], ['de', 0.0173],
  ['edu', 0.0114], ['co.uk', 0.0091], ['com.br', 0.0086], ['fr', 0.0081], ['jp', 0.0078], ['co', 0.0069],
  ['it', 0.0066], ['tv', 0.0057], ['pl', 0.0054], ['nl', 0.0053], ['in', 0.0049], ['es', 0.0049],
  ['github.io', 0.005],
];

/**
 * Canonical host: lists/protego-top-websites-2019.txt lists 86.8 % of top hosts as `www.`; we take
 * that as the share of sites whose apex redirects to www (the rest redirect www to the apex).
 */
export const WWW_CANONICAL_SHARE = 0.868;

/**
 * Transport mix (assumption; the corpus has no transport data): most sites redirect http → https;
 * some serve both without redirect; a few are HTTPS-only (port 80 closed) or HTTP-only (no TLS).
 */
export const TRANSPORT_WEIGHTS = { redirect_to_https: 0.8, both: 0.12, https_only: 0.05, http_only: 0.03 } as const;

/**
 * robots.txt over the 4,958 first captures in robots/: 6.4 % are HTML, 1.7 % disallow everything
 * for `*`, 54.6 % name a sitemap; median 596 bytes (p90 5.3 KB); median 1 user-agent line (p90 6).
 * Assumption: 10 % of hosts have no robots.txt (404), 1 % answer 5xx, 2 % disallow adsnap by name.
 */
export const ROBOTS_WEIGHTS = { rules: 0.794, none: 0.1, html: 0.064, disallow_all: 0.017, disallow_adsnap: 0.02, server_error: 0.01 } as const;
export const ROBOTS_SITEMAP_SHARE = 0.546;

/**
 * Apps: lists/appgoblin-store-apps-developer-domains-2025-02.csv holds 11,887 distinct apps, 62.0 %
 * Android (the rest iOS); median 2 apps per developer domain (p90 25).
 * lists/app-ads-txt-developer-domains.txt: 28.9 % of developer hosts start with `www.`, 14.5 % are
 * another subdomain. Assumption: 8 % of listings have an empty developer_url (the export omits them).
 */
export const ANDROID_SHARE = 0.62;
export const APPS_PER_DEVELOPER = 3;
export const DEVELOPER_URL_WEIGHTS = { apex: 0.48, www: 0.29, subdomain: 0.15, empty: 0.08 } as const;
/** Assumption: 70 % of developer domains serve an app-ads.txt (they are listed because they do). */
export const DEVELOPER_APP_ADS_SHARE = 0.7;

/**
 * sellers.json entries across sellers/: 89.1 % PUBLISHER, 9.6 % INTERMEDIARY, 1.4 % BOTH; none
 * confidential in the sample (assumption: 3 %, as seen in large SSP files).
 */
export const SELLER_TYPE_WEIGHTS = { PUBLISHER: 0.891, INTERMEDIARY: 0.096, BOTH: 0.014 } as const;
export const SELLER_CONFIDENTIAL_SHARE = 0.03;

/** Assumption: one host in 500 of the synthetic list is hostile (when hostile hosts are enabled). */
export const HOSTILE_SHARE = 0.002;

/** Assumption: an inventorypartnerdomain= names one of ~1 partner per 50 roots (CTV apps/channels). */
export const ROOTS_PER_PARTNER = 50;
/** Managed-ads.txt hosts that sites redirect their /ads.txt to (one per ~500 roots, at least 2). */
export const ROOTS_PER_MANAGER = 500;

/*
 * ---- The network behind real DNS (`simweb --dns`; net-layout.ts) ----
 * These apply to the listed synthetic root domains only (their www and subdomains share the
 * root's zone, so its fate); ad systems, managed-ads.txt hosts, partners, developers, stores,
 * hostile and fixture hosts always resolve, so that a DNS failure never hides what the other
 * outcomes test.
 */

/**
 * How a listed name resolves (weights).
 * - nxdomain 2.7 %, servfail 0.5 %: DNS Institute, "Tranco top million" (2020-08-26 list):
 *   27,299 of the names did not exist (NXDOMAIN) and 5,174 gave SERVFAIL
 *   (http://dnsinstitute.com/research/2020/top-million-202008.html).
 * - refused 0.2 %, timeout 0.3 %: assumption. The same institute's audit of the top name of each
 *   TLD found name servers that refuse or time out (lame delegations, nameservers with TCP
 *   time-outs: .../2021/top-domain-for-each-tld-analysis-summary-20210226.html), but gives no
 *   share over a full list; we take them below SERVFAIL, which a recursive resolver returns for
 *   most lame delegations.
 * - no_address 0.4 %: assumption: names that exist with no A/AAAA at the apex (mail-only or
 *   parked zones), so the resolver answers NOERROR with no data.
 * A crawl of a real top list sees more dead sites than DNS failures (27.6 % of a top 10M "dead"
 * in T. Wang, https://tonywang.io/blog/top-10-million-sites-27-percent-dead, 2024); the rest of
 * that share is connect failures and HTTP errors, modelled elsewhere (SYN_DEAD_SHARE, the HTTP mix).
 */
export const DNS_FATE_WEIGHTS = { ok: 0.959, nxdomain: 0.027, servfail: 0.005, refused: 0.002, timeout: 0.003, no_address: 0.004 } as const;

/**
 * Share of resolutions that are slow (answered after DNS_SLOW_MS), e.g. a far authoritative
 * server or a first, uncached lookup. Assumption: 3 %, 200–1500 ms, under the crawl's 5 s DNS
 * time-out so that they succeed.
 */
export const DNS_SLOW_SHARE = 0.03;
export const DNS_SLOW_MS = { min: 200, max: 1500 } as const;

/**
 * CDN-style sharing: share of listed sites behind a CDN, and the addresses they share.
 * HTTP Archive's December 2018 crawl of the CrUX origins detected a CDN on ~17 % of pages
 * (our sum of the post's table: 3.16M of ~3.8M pages with no CDN; Cloudflare 307k, Akamai 52k,
 * CloudFront 47k, Fastly 42k;
 * https://discuss.httparchive.org/t/cdn-usage-december-2018/1538); "Measuring the
 * Consolidation of DNS and Web Hosting Providers" (arXiv:2110.15345) find Cloudflare and Amazon
 * alone hosting a large share of the Tranco top 1M and more at the top. A top-list crawl
 * therefore meets a third or more of its sites on a few providers; we take 35 %, on 40 addresses
 * ("a few dozen": a CDN answers from a small anycast set per region).
 */
export const CDN_SHARE = 0.35;
export const CDN_ADDRESSES = 40;

/**
 * The other sites spread over shared-hosting addresses: one address per SITES_PER_SHARED_ADDRESS
 * sites (assumption: shared hosting puts several sites on one address; the DNS Institute found
 * the top million's 2.46M NS names on only 175k addresses, the same kind of sharing one level
 * down), between 64 and 2,048 addresses (each is bound on ports 80 and 443).
 */
export const SITES_PER_SHARED_ADDRESS = 8;
export const SHARED_ADDRESSES = { min: 64, max: 2048 } as const;

/**
 * Share of listed sites whose address never answers a SYN (a firewall that drops, a host that is
 * gone while its DNS stays): the crawl's connect time-out path. Assumption: 2 %, part of the
 * "dead" share above that is neither a DNS failure nor an HTTP answer.
 */
export const SYN_DEAD_SHARE = 0.02;

/**
 * IPv6-only sites (AAAA, no A). Common Crawl's IPv6 survey of 100k hosts found 36.9 % reachable
 * over IPv6 and 61.9 % with no AAAA (https://commoncrawl.github.io/ipv6-analysis); sites with
 * *only* an AAAA are rare enough that no survey we found counts them. Assumption: 0.2 %, so a
 * 10k-site crawl meets a couple of dozen.
 */
export const IPV6_ONLY_SHARE = 0.002;

/**
 * Share of names answered through a CNAME chain, and the chain's length. Assumption: every CDN
 * site (CNAME to the provider's edge name, as CDN onboarding asks) and 10 % of the others
 * (hosting platforms), with 1–3 links.
 */
export const CNAME_SHARE_SHARED = 0.1;
export const CNAME_MAX_LINKS = 3;

/**
 * Consent files beyond robots.txt (crawl --ai-signals; docs/reference/ai-signals.md). Not
 * calibrated: the corpus holds no tdmrep.json or llms.txt, so these are assumptions that give the
 * report's consent section every case to show, at shares of the order published studies of
 * TDMRep and llms.txt adoption report (a few percent of top sites at most).
 */
export const TDMREP_WEIGHTS = { none: 0.95, reserve_all: 0.03, reserve_news: 0.01, not_reserved: 0.01 } as const;
export const LLMS_TXT_WEIGHTS = { none: 0.93, markdown: 0.05, html: 0.02 } as const;
/** Share of sites whose robots.txt response carries `tdm-reservation: 1` (TDMRep §3.2). */
export const TDM_HEADER_SHARE = 0.02;
/**
 * The home page (crawl --ai-signals reads its head): what its head says. Assumed shares, not
 * measured: NoAI meta tags and X-Robots-Tag noai are rare (the IMC 2025 study "Somesite I Used To
 * Crawl" finds them on a small minority of sites); most heads say nothing of AI.
 */
export const HOME_PAGE_WEIGHTS = { plain: 0.95, noai_meta: 0.02, noai_header: 0.01, tdm_meta: 0.01, rsl_link: 0.01 } as const;
/** Bytes of a synthetic home page's head (style and script inline, as many real heads have) and body. */
export const HOME_PAGE_HEAD_BYTES = 12 * 1024;
export const HOME_PAGE_BODY_BYTES = 48 * 1024;
