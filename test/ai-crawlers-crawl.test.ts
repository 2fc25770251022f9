import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { FILE_STATUSES } from '../schemas/tables.js';
import { parseAgentsCatalogue } from '../src/resolve/agents-catalogue.js';
import { packageRoot } from '../src/util/package-root.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { runCli } from './helpers/run-cli.js';
import { createTestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * The AI-crawler tables end to end: a crawl over robots.txt fixtures writes robots_agent_access,
 * robots_usage_signals and agents_catalogue, and the views' shares equal the same shares counted
 * independently over the site × agent product in DuckDB.
 */
const tempDir = useTempDirs('ai-crawlers');
const TEXT = { 'content-type': 'text/plain' };

// What each listed site serves at /robots.txt ('reset' drops the connection).
const ROBOTS: Record<string, { status: number; body?: string; headers?: Record<string, string> } | 'reset'> = {
  'own.test': { status: 200, body: 'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n' },
  'star.test': { status: 200, body: 'User-agent: *\nDisallow: /\n\nUser-agent: ClaudeBot\nAllow: /\n' },
  'partial.test': { status: 200, body: 'User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\nAllow: /news/\n' },
  'signals.test': { status: 200, body: 'User-agent: *\nContent-Signal: search=yes, ai-train=no\nContent-Usage: train-ai=n\nContent-Usage: /open/ train-ai=y\nContent-Signal: ai-input=perhaps\nAllow: /\n' },
  'down.test': { status: 503, body: 'busy\n' },
  'reset.test': 'reset',
  'absent.test': { status: 404, body: 'no\n' },
  'html.test': { status: 200, body: '<!doctype html><html><body>Not here</body></html>\n' },
  // Content not seen, so the site said nothing: a bot wall (Cloudflare's challenge header on a
  // 403), a 429. A 410 is a 4xx that says there is none.
  'wall.test': { status: 403, body: '<!doctype html><html><body>Just a moment...</body></html>\n', headers: { 'content-type': 'text/html', 'cf-mitigated': 'challenge' } },
  'busy.test': { status: 429, body: 'slow down\n' },
  'gone.test': { status: 410, body: 'gone\n' },
};
const LISTED = Object.keys(ROBOTS);
const CATALOGUE = {
  version: 'test-1',
  date: '2026-11-01',
  sources: { t: { url: 'https://example.org/test' } },
  agents: [
    { token: 'GPTBot', operator: 'OpenAI', purpose: 'training', sources: ['t'] },
    { token: 'ClaudeBot', operator: 'Anthropic', purpose: 'training', sources: ['t'] },
    { token: 'CCBot', operator: 'Common Crawl', purpose: 'data', sources: ['t'] },
    { token: 'AdsBot-Google', operator: 'Google', purpose: 'ads', sources: ['t'] },
  ],
};

let web: LocalWeb;
let out: string;
let catalogueFile: string;
let db: Awaited<ReturnType<typeof openSnapshotDb>>;

beforeAll(async () => {
  const tls = await createTestTls();
  web = await startLocalWeb(tls);
  for (const [host, r] of Object.entries(ROBOTS)) {
    for (const scheme of ['https', 'http']) {
      web.route(`${scheme}://${host}/robots.txt`, (_req, res) => {
        if (r === 'reset') return void res.socket?.destroy();
        res.writeHead(r.status, r.headers ?? TEXT).end(r.body ?? '');
      });
    }
  }
  const dir = tempDir();
  out = path.join(dir, 'out');
  const domains = path.join(dir, 'domains.txt');
  writeFileSync(domains, LISTED.join('\n') + '\n');
  catalogueFile = path.join(dir, 'catalogue.json');
  const bytes = Buffer.from(JSON.stringify(CATALOGUE));
  writeFileSync(catalogueFile, bytes);
  await crawl({
    domains,
    outDir: out,
    snapshotDate: '2026-11-25',
    checkpointSeconds: 0,
    sellers: false,
    agentsCatalogue: parseAgentsCatalogue(bytes, catalogueFile),
    fetch: { connectTo: web.connectTo, caCerts: [tls.caPem], retries: 0 },
  });
  db = await openSnapshotDb(out);
}, 120_000);

afterAll(async () => {
  db?.close();
  await web?.close();
});

const q = (sql: string) => db.rows(sql);

describe('robots_agent_access from a crawl', () => {
  it('per site: the * row and a row per catalogue agent a group names', async () => {
    const rows = await q(`SELECT host, user_agent, blocked, via FROM robots_agent_access ORDER BY host, user_agent`);
    expect(rows.map((r) => `${r.host} ${r.user_agent} ${r.blocked} ${r.via}`)).toEqual([
      'absent.test * none absent',
      'busy.test * none absent',
      'down.test * full unreachable',
      'gone.test * none absent',
      'html.test * none no_group',
      'own.test * none global_group',
      'own.test CCBot full own_group',
      'own.test GPTBot full own_group',
      'partial.test * partial global_group',
      'partial.test GPTBot partial own_group',
      'reset.test * full unreachable',
      'signals.test * none global_group',
      'star.test * full global_group',
      'star.test ClaudeBot none own_group',
      'wall.test * none absent',
    ]);
    // The crawler's own policy is unchanged (RFC 9309 §2.3.1): these rows say what a crawler must
    // do; the files rows say what was seen.
    const seen = await q(`SELECT subject, status, http_status FROM files WHERE file_kind = 'robots.txt' AND subject IN ('wall.test', 'busy.test', 'gone.test', 'down.test', 'reset.test') ORDER BY subject`);
    expect(seen.map((r) => `${r.subject} ${r.status} ${r.http_status}`)).toEqual([
      'busy.test rate_limited 429',
      'down.test http_error 503',
      'gone.test http_error 410',
      'reset.test unreachable null',
      'wall.test blocked 403',
    ]);
  });

  it('agent_access (the product) gives every agent an answer on every site', async () => {
    const rows = await q(`SELECT host, user_agent, blocked, via FROM agent_access WHERE host IN ('star.test', 'own.test') ORDER BY host, user_agent`);
    expect(rows.map((r) => `${r.host} ${r.user_agent} ${r.blocked} ${r.via}`)).toEqual([
      'own.test AdsBot-Google none global_group',
      'own.test CCBot full own_group',
      'own.test ClaudeBot none global_group',
      'own.test GPTBot full own_group',
      'star.test AdsBot-Google full global_group',
      'star.test CCBot full global_group',
      'star.test ClaudeBot none own_group',
      'star.test GPTBot full global_group',
    ]);
  });

  it('agent_access_shares and ai_crawler_blocking equal shares counted independently', async () => {
    // Independent: the '*' rows of the listed sites' robots.txt, crossed with the catalogue, the
    // agent's own row where there is one, counted directly; 'unknown' where the robots.txt content
    // was not seen (a wall, a 429, a 5xx, no answer), read off files.status and http_status.
    const independent = await q(`
      WITH sites AS (
        SELECT r.host, f.status IN ('blocked', 'rate_limited', 'unreachable') OR (f.status = 'http_error' AND f.http_status >= 500) AS unseen
        FROM robots_agent_access r JOIN files f ON f.subject = r.host AND f.file_kind = 'robots.txt' AND f.via = 'root'
        WHERE r.user_agent = '*'),
      agents AS (SELECT DISTINCT user_agent FROM agents_catalogue),
      answer AS (
        SELECT s.host, a.user_agent,
               CASE WHEN s.unseen THEN 'unknown' ELSE coalesce((SELECT blocked FROM robots_agent_access r WHERE r.host = s.host AND r.user_agent = a.user_agent), (SELECT blocked FROM robots_agent_access r WHERE r.host = s.host AND r.user_agent = '*')) END AS blocked,
               coalesce((SELECT via FROM robots_agent_access r WHERE r.host = s.host AND r.user_agent = a.user_agent), (SELECT via FROM robots_agent_access r WHERE r.host = s.host AND r.user_agent = '*')) AS via
        FROM sites s CROSS JOIN agents a)
      SELECT user_agent, blocked, via, count(*) AS sites, count(*) / (SELECT count(*) FROM sites) AS share FROM answer GROUP BY ALL ORDER BY ALL`);
    const view = await q(`SELECT user_agent, blocked, via, sites, share FROM agent_access_shares ORDER BY user_agent, blocked, via`);
    expect(view).toEqual(independent);
    const product = await q(`SELECT user_agent, blocked, via, count(*) AS sites FROM agent_access GROUP BY ALL ORDER BY ALL`);
    expect(product).toEqual(view.map(({ user_agent, blocked, via, sites }) => ({ user_agent, blocked, via, sites })));
    const wide = await q(`SELECT user_agent, sites, share_full, share_partial, share_none, share_unknown, share_full_by_name, share_full_through_star, share_partial_by_name, share_unreachable, share_absent FROM ai_crawler_blocking ORDER BY user_agent`);
    const gpt = wide.find((r) => r.user_agent === 'GPTBot')!;
    // 11 sites: full = own (by name), star; partial = partial.test (by name); none = absent, gone
    // (404, 410), html, signals; unknown = down (503), reset (no answer), wall, busy (429).
    // Unreachable (5xx, network): down, reset; absent (a 4xx said none): absent, gone.
    expect(gpt).toEqual({ user_agent: 'GPTBot', sites: 11, share_full: 2 / 11, share_partial: 1 / 11, share_none: 4 / 11, share_unknown: 4 / 11, share_full_by_name: 1 / 11, share_full_through_star: 1 / 11, share_partial_by_name: 1 / 11, share_unreachable: 2 / 11, share_absent: 2 / 11 });
    for (const r of wide) expect(Number(r.share_full) + Number(r.share_partial) + Number(r.share_none) + Number(r.share_unknown)).toBeCloseTo(1, 12);
  });

  it('adsnap_robots_unseen names statuses that exist, and only the ones where the content was not seen', async () => {
    const rows = await q(`SELECT s AS status, h AS http, adsnap_robots_unseen(s, h) AS unseen
      FROM unnest(${JSON.stringify(FILE_STATUSES).replace(/"/g, "'")}) t(s), (VALUES (NULL::INTEGER), (404), (410), (500), (503)) v(h) ORDER BY ALL`);
    const unseen = new Set(rows.filter((r) => r.unseen).map((r) => `${r.status}${r.status === 'http_error' ? `/${r.http}` : ''}`));
    expect([...unseen].sort()).toEqual(['blocked', 'http_error/500', 'http_error/503', 'http_error/null', 'rate_limited', 'redirect_error', 'unreachable']);
    // Every status the macro names is one of FILE_STATUSES (a misspelt one would match nothing).
    const sql = readFileSync(path.join(packageRoot(), 'sql', 'views.sql'), 'utf8');
    const macro = /MACRO adsnap_robots_unseen[\s\S]*?;/.exec(sql)![0];
    for (const quoted of macro.match(/'[a-z_]+'/g)!) expect(FILE_STATUSES as readonly string[]).toContain(quoted.slice(1, -1));
  });

  it('roll-ups by purpose and by operator equal the product grouped independently', async () => {
    // Independent: per site and group, the levels of the group's agents in agent_access.
    const rollup = (key: 'purpose' | 'operator') => q(`
      WITH per_site AS (
        SELECT ${key} AS grp, host, count(*) AS agents,
               CASE WHEN bool_or(blocked = 'unknown') THEN 'unknown' WHEN bool_and(blocked = 'full') THEN 'full' WHEN bool_or(blocked = 'full') THEN 'some_full'
                    WHEN bool_and(blocked = 'none') THEN 'none' ELSE 'partial' END AS level,
               bool_or(blocked = 'full') AS any_full
        FROM agent_access GROUP BY ALL)
      SELECT grp, any_value(agents) AS agents, count(*) AS sites,
             count(*) FILTER (WHERE level = 'full') / count(*) AS share_full, count(*) FILTER (WHERE level = 'some_full') / count(*) AS share_some_full,
             count(*) FILTER (WHERE level = 'partial') / count(*) AS share_partial,
             count(*) FILTER (WHERE level = 'none') / count(*) AS share_none, count(*) FILTER (WHERE level = 'unknown') / count(*) AS share_unknown,
             count(*) FILTER (WHERE any_full) / count(*) AS share_any_full
      FROM per_site GROUP BY grp ORDER BY grp`);
    const byPurpose = await q(`SELECT purpose AS grp, agents, sites, share_full, share_some_full, share_partial, share_none, share_unknown, share_any_full FROM ai_crawler_blocking_by_purpose ORDER BY grp`);
    expect(byPurpose).toEqual(await rollup('purpose'));
    const byOperator = await q(`SELECT operator AS grp, agents, sites, share_full, share_some_full, share_partial, share_none, share_unknown, share_any_full FROM ai_crawler_blocking_by_operator ORDER BY grp`);
    expect(byOperator).toEqual(await rollup('operator'));
    // training (GPTBot, ClaudeBot) over 11 sites: own.test blocks GPTBot only and star.test all but
    // ClaudeBot (some fully: an opt-out, not of all); partial.test a path only (partial, no
    // opt-out); none: absent, gone, html, signals.
    expect(byPurpose.find((r) => r.grp === 'training')).toEqual({ grp: 'training', agents: 2, sites: 11, share_full: 0, share_some_full: 2 / 11, share_partial: 1 / 11, share_none: 4 / 11, share_unknown: 4 / 11, share_any_full: 2 / 11 });
    // Common Crawl (CCBot): own.test names it (full), star.test blocks it through '*'.
    expect(byOperator.find((r) => r.grp === 'Common Crawl')).toMatchObject({ agents: 1, share_full: 2 / 11, share_some_full: 0, share_partial: 1 / 11, share_any_full: 2 / 11 });
    for (const r of [...byPurpose, ...byOperator]) {
      expect(Number(r.share_full) + Number(r.share_some_full) + Number(r.share_partial) + Number(r.share_none) + Number(r.share_unknown)).toBeCloseTo(1, 12);
    }
  });
});

describe('robots_usage_signals and the catalogue of the night', () => {
  it('Content-Signal and Content-Usage rows; a malformed value is a parse issue counted in files.warnings', async () => {
    const rows = await q(`SELECT directive, group_no, user_agents, path, key, value, line_no FROM robots_usage_signals WHERE host = 'signals.test' ORDER BY line_no, key`);
    expect(rows.map((r) => [r.directive, r.path, r.key, r.value, r.line_no])).toEqual([
      ['content-signal', null, 'ai-train', 'no', 2],
      ['content-signal', null, 'search', 'yes', 2],
      ['content-usage', null, 'train-ai', 'n', 3],
      ['content-usage', '/open/', 'train-ai', 'y', 4],
      ['content-signal', null, 'ai-input', 'perhaps', 5],
    ]);
    const issues = await q(`SELECT line_no, code FROM parse_issues WHERE subject = 'signals.test' AND file_kind = 'robots.txt' ORDER BY line_no`);
    expect(issues).toEqual([{ line_no: 5, code: 'CONTENT_SIGNAL_INVALID_VALUE' }]);
    const files = await q(`SELECT warnings, lines FROM files WHERE subject = 'signals.test' AND file_kind = 'robots.txt'`);
    expect(files).toEqual([{ warnings: 1, lines: 6 }]);
  });

  it('agents_catalogue holds the night’s catalogue once; the manifest records version, date and sha256', async () => {
    const rows = await q(`SELECT user_agent, purpose, catalogue_version, catalogue_date FROM agents_catalogue ORDER BY user_agent`);
    expect(rows.map((r) => `${r.user_agent}/${r.purpose}/${r.catalogue_version}/${r.catalogue_date}`)).toEqual([
      'AdsBot-Google/ads/test-1/2026-11-01',
      'CCBot/data/test-1/2026-11-01',
      'ClaudeBot/training/test-1/2026-11-01',
      'GPTBot/training/test-1/2026-11-01',
    ]);
    const manifests = (await q(`SELECT content FROM read_text('${out}/_runs/*.json')`)).map((r) => JSON.parse(r.content as string));
    expect(manifests).toHaveLength(1);
    expect(manifests[0].options.agents_catalogue).toEqual({ version: 'test-1', date: '2026-11-01', sha256: parseAgentsCatalogue(readFileSync(catalogueFile), 'x').sha256, agents: 4, file: catalogueFile });
  });
});

describe('adsnap crawl --agents-catalogue', () => {
  it('a bad file is a usage error (exit 2) naming the problem, before anything is written', async () => {
    const dir = tempDir();
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...CATALOGUE, agents: [{ ...CATALOGUE.agents[0], token: 'GPT Bot' }] }));
    writeFileSync(path.join(dir, 'd.txt'), 'own.test\n');
    const r = await runCli(['crawl', '--domains', path.join(dir, 'd.txt'), '--out', path.join(dir, 'out'), '--agents-catalogue', bad, '--progress', 'none']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--agents-catalogue: .*bad\.json: agents\[0\]: token "GPT Bot" is not a product token/);
    const missing = await runCli(['crawl', '--domains', path.join(dir, 'd.txt'), '--out', path.join(dir, 'out'), '--agents-catalogue', path.join(dir, 'none.json'), '--progress', 'none']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot be read \(ENOENT\)/);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });
});
