import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { openSnapshotDb } from '../pipelines/summary.js';
import { buildReport, type ReportJson } from '../src/report/index.js';
import { SECTIONS } from '../src/report/figures.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { runCli } from './helpers/run-cli.js';
import { createTestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';

/**
 * `adsnap report` over a three-night series of a small web whose files change in known ways. Each
 * section's figures are checked against what the web served (worked out by hand below) and
 * against independent SQL over the base tables; every figure's SQL, run again with the setup
 * statements of report.json, gives the rows of report.json.
 */
const tempDir = useTempDirs('report');
const T0 = Date.parse('2026-11-20T02:00:00Z');
const DAY = 86_400_000;
const NIGHTS = [
  { date: '2026-11-20', now: new Date(T0) },
  { date: '2026-11-21', now: new Date(T0 + DAY) },
  { date: '2026-11-22', now: new Date(T0 + 2 * DAY) },
] as const;
const TEXT = { 'content-type': 'text/plain' };
type Served = { status: number; body?: string; headers?: Record<string, string> };

/** What each URL serves on each night (index = night); a missing night repeats the previous one. */
const SITE: Record<string, Served[]> = {
  // Rank 1. Owner a.test; adx.test seller 1 DIRECT and ssp.test 10 RESELLER; adx.test 2 added on night 2.
  'https://a.test/ads.txt': [
    txt('OWNERDOMAIN=a.test\nMANAGERDOMAIN=mgr.test,US\nadx.test, 1, DIRECT, cert1\nssp.test, 10, RESELLER\n'),
    txt('OWNERDOMAIN=a.test\nMANAGERDOMAIN=mgr.test,US\nadx.test, 1, DIRECT, cert1\nssp.test, 10, RESELLER\nadx.test, 2, DIRECT\n'),
  ],
  // Rank 2. Claims adx.test seller 1 DIRECT too, under another owner (pooling); loses its file on night 3.
  'https://b.test/ads.txt': [txt('OWNERDOMAIN=b.test\nadx.test, 1, DIRECT\nadx.test, 77, DIRECT\n'), txt('OWNERDOMAIN=b.test\nadx.test, 1, DIRECT\nadx.test, 77, DIRECT\n'), { status: 404 }],
  // Rank 3: a placeholder. Rank 4: no file on night 1, one from night 2.
  'https://c.test/ads.txt': [txt('placeholder.example.com, placeholder, DIRECT, placeholder\n')],
  'https://d.test/ads.txt': [{ status: 404 }, txt('ssp.test, 10, DIRECT\n')],
  // robots.txt: a.test blocks GPTBot by name; b.test blocks everyone; c.test blocks part of the site.
  'https://a.test/robots.txt': [txt('User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n')],
  'https://b.test/robots.txt': [txt('User-agent: *\nDisallow: /\n')],
  'https://c.test/robots.txt': [txt('User-agent: *\nDisallow: /private/\n')],
  'https://d.test/robots.txt': [{ status: 404 }],
  // The app's developer host.
  'https://dev.test/app-ads.txt': [txt('ssp.test, 11, RESELLER\n')],
  // sellers.json: adx.test lists seller 1 (domain a.test) and 2; drops 2 and adds 3 on night 3.
  'https://adx.test/sellers.json': [
    sellers([['1', 'PUBLISHER', 'Alpha', 'a.test'], ['2', 'PUBLISHER', 'Two', 'a.test']]),
    sellers([['1', 'PUBLISHER', 'Alpha', 'a.test'], ['2', 'PUBLISHER', 'Two', 'a.test']]),
    sellers([['1', 'PUBLISHER', 'Alpha', 'a.test'], ['3', 'INTERMEDIARY', 'Three', 'three.test']]),
  ],
  // ssp.test publishes its sellers.json on another host (--sellers-location), not at its root.
  'https://ssp.test/sellers.json': [{ status: 404 }],
  'https://pub.ssp.test/sellers.json': [sellers([['10', 'INTERMEDIARY', 'Ten', 'ssp.test'], ['11', 'BOTH', 'Eleven', 'ssp.test']])],
};
const LISTED = ['a.test', 'b.test', 'c.test', 'd.test'];
const APP = 'https://play.google.com/store/apps/details?id=com.example.game';

function txt(body: string): Served {
  return { status: 200, body, headers: TEXT };
}
function sellers(entries: [string, string, string, string][]): Served {
  const list = entries.map(([seller_id, seller_type, name, domain]) => ({ seller_id, seller_type, name, domain }));
  return { status: 200, body: JSON.stringify({ version: '1.0', contact_email: 'ops@adx.test', sellers: list }), headers: { 'content-type': 'application/json' } };
}

let web: LocalWeb;
let out: string;
let reportDir: string;
let report: ReportJson;
let night = 0;

beforeAll(async () => {
  const tls = await createTestTls();
  web = await startLocalWeb(tls);
  const hosts = new Set(Object.keys(SITE).map((u) => new URL(u).host));
  for (const h of hosts) if (!SITE[`https://${h}/robots.txt`]) SITE[`https://${h}/robots.txt`] = [txt('User-agent: *\nAllow: /\n')];
  for (const [url, nights] of Object.entries(SITE)) {
    const serve = (_req: unknown, res: import('node:http').ServerResponse) => {
      const s = nights[Math.min(night, nights.length - 1)]!;
      res.writeHead(s.status, s.headers ?? TEXT).end(s.body ?? '');
    };
    web.route(url, serve);
    web.route(url.replace('https://', 'http://'), serve);
  }
  const dir = tempDir();
  out = path.join(dir, 'out');
  const domains = path.join(dir, 'top.csv');
  writeFileSync(domains, LISTED.map((d, i) => `${i + 1},${d}`).join('\n') + '\n');
  const apps = path.join(dir, 'apps.csv');
  writeFileSync(apps, `store_url,developer_url\n${APP},https://dev.test/\n`);
  for (const [i, n] of NIGHTS.entries()) {
    night = i;
    await crawl({ domains, apps, outDir: out, snapshotDate: n.date, now: n.now, checkpointSeconds: 0, sellersLocations: { 'ssp.test': 'https://pub.ssp.test/sellers.json' }, fetch: { connectTo: web.connectTo, caCerts: [tls.caPem], retries: 0 } });
  }
  reportDir = path.join(dir, 'report');
  await buildReport({ roots: [out], outDir: reportDir, rankBuckets: [2, 3], now: new Date('2026-11-23T00:00:00Z') });
  report = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8')) as ReportJson;
}, 120_000);

afterAll(async () => {
  await web?.close();
});

function figure(key: string) {
  const f = report.sections.flatMap((s) => s.figures).find((x) => x.key === key);
  if (!f) throw new Error(`no figure ${key}`);
  return f;
}
/** Rows of a figure with only the named columns. */
function pick(key: string, cols: string[]) {
  return figure(key).rows.map((r) => Object.fromEntries(cols.map((c) => [c, r[c]])));
}

describe('report.json: each section against what the web served', () => {
  it('covers the three nights, every section and figure by its stable key', () => {
    expect(report.window.nights).toEqual(NIGHTS.map((n) => n.date));
    expect(report.missing).toEqual([]);
    expect(report.sections.map((s) => s.key)).toEqual(SECTIONS.map((s) => s.key));
    expect(report.sections.flatMap((s) => s.figures.map((f) => f.key))).toEqual(SECTIONS.flatMap((s) => s.figures.map((f) => f.key)));
    for (const f of report.sections.flatMap((s) => s.figures)) expect(existsSync(path.join(reportDir, `${f.key}.csv`)), f.key).toBe(true);
  });

  it('1. adoption by rank bucket (buckets 2 and 3) and app-ads.txt by store', () => {
    expect(pick('adoption.ads_txt_by_rank', ['snapshot_date', 'rank_bucket', 'sites', 'served', 'valid', 'placeholder'])).toEqual([
      { snapshot_date: '2026-11-20', rank_bucket: '1–2', sites: 2, served: 2, valid: 2, placeholder: 0 },
      { snapshot_date: '2026-11-20', rank_bucket: '2–3', sites: 1, served: 1, valid: 1, placeholder: 1 },
      { snapshot_date: '2026-11-20', rank_bucket: 'beyond 3', sites: 1, served: 0, valid: 0, placeholder: 0 },
      { snapshot_date: '2026-11-21', rank_bucket: '1–2', sites: 2, served: 2, valid: 2, placeholder: 0 },
      { snapshot_date: '2026-11-21', rank_bucket: '2–3', sites: 1, served: 1, valid: 1, placeholder: 1 },
      { snapshot_date: '2026-11-21', rank_bucket: 'beyond 3', sites: 1, served: 1, valid: 1, placeholder: 0 },
      { snapshot_date: '2026-11-22', rank_bucket: '1–2', sites: 2, served: 1, valid: 1, placeholder: 0 },
      { snapshot_date: '2026-11-22', rank_bucket: '2–3', sites: 1, served: 1, valid: 1, placeholder: 1 },
      { snapshot_date: '2026-11-22', rank_bucket: 'beyond 3', sites: 1, served: 1, valid: 1, placeholder: 0 },
    ]);
    expect(figure('adoption.ads_txt_by_rank').rows[6]!.valid_share).toBe(0.5);
    expect(pick('adoption.app_ads_txt_by_store', ['snapshot_date', 'store', 'apps', 'served', 'valid'])).toEqual(
      NIGHTS.map((n) => ({ snapshot_date: n.date, store: 'google_play', apps: 1, served: 1, valid: 1 })),
    );
  });

  it('2. variables: OWNERDOMAIN in a.test and b.test, MANAGERDOMAIN with its country', () => {
    const owner = figure('variables.declared').rows.filter((r) => r.name === 'OWNERDOMAIN' && r.file_group === 'ads.txt');
    // Served ads.txt: a, b, c (placeholder) on night 1; + d on night 2; b gone on night 3.
    expect(owner.map((r) => [r.snapshot_date, r.files_served, r.files_declaring])).toEqual([
      ['2026-11-20', 3, 2],
      ['2026-11-21', 4, 2],
      ['2026-11-22', 3, 1],
    ]);
    expect(pick('variables.managerdomain_countries', ['country', 'declarations', 'files'])).toEqual([{ country: 'US', declarations: 1, files: 1 }]);
  });

  it('3. ad systems of the latest night, and DIRECT / RESELLER over time', () => {
    // Night 3: a.test (adx 1, ssp 10, adx 2), d.test (ssp 10 DIRECT), c.test placeholder, dev.test (ssp 11).
    expect(pick('ad_systems.top', ['ad_system_domain', 'files', 'records', 'direct_share', 'cert_id_share'])).toEqual([
      { ad_system_domain: 'ssp.test', files: 3, records: 3, direct_share: 0.3333, cert_id_share: 0 },
      { ad_system_domain: 'adx.test', files: 1, records: 2, direct_share: 1, cert_id_share: 0.5 },
      { ad_system_domain: 'placeholder.example.com', files: 1, records: 1, direct_share: 1, cert_id_share: 1 },
    ]);
    const rel = figure('ad_systems.relationship').rows.filter((r) => r.snapshot_date === '2026-11-20');
    expect(rel.map((r) => [r.relationship, r.records])).toEqual([
      ['DIRECT', 4],
      ['RESELLER', 2],
    ]);
  });

  it('4. consistency: b.test seller 77 missing from adx.test; the owner mismatch of b.test', () => {
    const night1 = figure('consistency.over_time').rows.find((r) => r.snapshot_date === '2026-11-20')!;
    // Valid files' records on night 1: a (3: adx 1, ssp 10 + nothing else), b (2), c (1), dev (1).
    expect([night1.missing, night1.owner_mismatch]).toEqual([1, 1]);
    const latest = figure('consistency.by_ad_system').rows.find((r) => r.ad_system_domain === 'adx.test')!;
    // Night 3: a.test's adx 1 and adx 2; adx 2 is no longer in sellers.json.
    expect([latest.records, latest.checkable, latest.missing, latest.missing_share]).toEqual([2, 2, 1, 0.5]);
  });

  it('5. pooling: adx.test seller 1 claimed DIRECT by a.test (its owner in sellers.json) and by b.test', async () => {
    const series = figure('pooling.over_time').rows.map((r) => [r.snapshot_date, r.pooled_ids, r.records]);
    // Night 3: b.test has no file, so seller 1 has one owner left.
    expect(series).toEqual([
      ['2026-11-20', 1, 2],
      ['2026-11-21', 1, 2],
    ]);
    expect(figure('pooling.worst').rows).toEqual([]);
    const r = await buildReport({ roots: [out], outDir: path.join(tempDir(), 'n2'), to: '2026-11-21' });
    const worst = (JSON.parse(readFileSync(r.json, 'utf8')) as ReportJson).sections.find((s) => s.key === 'pooling')!.figures[0]!.rows;
    expect(worst).toEqual([
      { ad_system_domain: 'adx.test', seller_account_id: '1', seller_name: 'Alpha', seller_domain: 'a.test', sites: 2, owners: 2, owners_matching_seller_domain: 1, sample_owners: ['a.test', 'b.test'] },
    ]);
  });

  it('6. robots.txt: GPTBot blocked by name on a.test, everyone through * on b.test, part of c.test', () => {
    const rows = figure('robots.agents').rows;
    const gpt = rows.find((r) => r.user_agent === 'GPTBot')!;
    const google = rows.find((r) => r.user_agent === 'Googlebot')!;
    // Sites with a robots.txt read: a, b, c (d.test answers 404).
    expect([gpt.sites, gpt.blocked_fully, gpt.fully_by_name, gpt.fully_by_star, gpt.blocked_partly, gpt.not_blocked]).toEqual([3, 2, 1, 1, 1, 0]);
    expect([google.sites, google.blocked_fully, google.fully_by_name, google.blocked_partly, google.not_blocked]).toEqual([3, 1, 0, 1, 1]);
    expect(gpt.fully_share).toBe(0.6667);
  });

  it('7. changes per night: records and sellers added and removed, sites gaining and losing ads.txt', () => {
    expect(pick('changes.per_night', ['snapshot_date', 'records_added', 'records_removed', 'sellers_added', 'sellers_removed', 'sites_gained_ads_txt', 'sites_lost_ads_txt'])).toEqual([
      // Night 2: a.test adds adx 2; d.test gains its file (ssp 10).
      { snapshot_date: '2026-11-21', records_added: 2, records_removed: 0, sellers_added: 0, sellers_removed: 0, sites_gained_ads_txt: 1, sites_lost_ads_txt: 0 },
      // Night 3: b.test loses both records and its file; adx.test drops seller 2 and adds 3.
      { snapshot_date: '2026-11-22', records_added: 0, records_removed: 2, sellers_added: 1, sellers_removed: 1, sites_gained_ads_txt: 0, sites_lost_ads_txt: 1 },
    ]);
    expect(pick('changes.ad_systems', ['ad_system_domain', 'added', 'removed', 'net', 'side'])).toEqual([{ ad_system_domain: 'adx.test', added: 0, removed: 2, net: -2, side: 'lost' }]);
  });

  it('8. what the ad systems reach through intermediaries, latest night', () => {
    // adx.test names three.test (INTERMEDIARY, no sellers.json there); ssp.test names itself.
    expect(pick('sellers.reach_by_depth', ['depth', 'files', 'entries', 'publisher_domains', 'ad_systems'])).toEqual([{ depth: 0, files: 2, entries: 4, publisher_domains: 1, ad_systems: 2 }]);
    // ssp.test's file is read where it publishes: its three records of valid files are checkable.
    expect(figure('consistency.sellers_location').rows).toEqual([{ ad_system_domain: 'ssp.test', sellers_json_url: 'https://pub.ssp.test/sellers.json', status: 'ok', records: 3, checkable: 3 }]);
  });

  it('8. sellers.json types and headers, latest night', () => {
    expect(pick('sellers.types', ['seller_type', 'sellers'])).toEqual([
      { seller_type: 'INTERMEDIARY', sellers: 2 },
      { seller_type: 'BOTH', sellers: 1 },
      { seller_type: 'PUBLISHER', sellers: 1 },
    ]);
    expect(figure('sellers.headers').rows).toEqual([{ files: 2, version: 2, contact_email: 2, contact_address: 0, identifiers: 0, ext: 0 }]);
  });

  it('9. data quality: outcomes and provenance agree with the files table', async () => {
    const db = await openSnapshotDb(out);
    try {
      const want = await db.rows(`SELECT file_kind, status, count(*)::INTEGER AS files FROM files WHERE snapshot_date = DATE '2026-11-22' GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2`);
      expect(figure('quality.file_status').rows).toEqual(want);
      const obtained = await db.rows(`SELECT count(*)::INTEGER AS n FROM files`);
      expect(figure('quality.obtained').rows.reduce((a, r) => a + Number(r.files), 0)).toBe(obtained[0]!.n);
    } finally {
      db.close();
    }
  });

  it('every figure is reproduced by its SQL after the setup statements, as adsnap sql runs it', async () => {
    const db = await openSnapshotDb(out);
    try {
      for (const stmt of report.setup_sql) await db.rows(stmt);
      for (const f of report.sections.flatMap((s) => s.figures)) {
        if (f.note === 'Needs two or more nights.') continue;
        const again = await db.rows(f.sql);
        expect(again.length, f.key).toBe(f.rows.length);
      }
    } finally {
      db.close();
    }
    const cli = await runCli(['sql', out, '--format', 'json', '-c', [...report.setup_sql, figure('changes.per_night').sql].join(';\n')]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(figure('changes.per_night').rows);
  });
});

describe('the page', () => {
  it('is one file with inline SVG charts, no script and nothing fetched; each chart with a title and its table', () => {
    const html = readFileSync(path.join(reportDir, 'index.html'), 'utf8');
    expect(html).not.toMatch(/<script|<link\b|<img\b|@import|url\(/i);
    expect(html).not.toMatch(/\bsrc=/i);
    const figures = [...html.matchAll(/<figure id="([^"]+)"[\s\S]*?<\/figure>/g)];
    expect(figures.length).toBe(SECTIONS.flatMap((s) => s.figures).length);
    let charts = 0;
    for (const [block, key] of figures) {
      expect(block, key).toMatch(/<h3>[^<]+<\/h3>/);
      if (block.includes('<svg')) {
        charts++;
        expect(block, key).toMatch(/<svg[^>]* role="img" aria-label="[^"]+"/);
        expect(block, key).toContain('<table>');
      }
    }
    expect(charts).toBeGreaterThanOrEqual(14);
  });
});

describe('what is missing is said', () => {
  it('one night: a note, and the figures over time and the changes say they need two nights', async () => {
    const dir = path.join(tempDir(), 'one');
    const r = await buildReport({ roots: [out], outDir: dir, from: '2026-11-21', to: '2026-11-21' });
    expect(r.nights).toEqual(['2026-11-21']);
    const j = JSON.parse(readFileSync(r.json, 'utf8')) as ReportJson;
    expect(j.missing.join(' ')).toMatch(/One night \(2026-11-21\)/);
    const changes = j.sections.find((s) => s.key === 'changes')!.figures;
    expect(changes.map((f) => [f.note, f.rows.length])).toEqual([
      ['Needs two or more nights.', 0],
      ['Needs two or more nights.', 0],
    ]);
    const html = readFileSync(r.index, 'utf8');
    expect(html).toContain('class="missing"');
    expect(html).toContain('One night: the line over time needs two or more');
  });

  it('a window with no night, and a CLI error for a root without runs and for bad dates', async () => {
    const dir = path.join(tempDir(), 'none');
    const r = await buildReport({ roots: [out], outDir: dir, from: '2027-01-01' });
    expect(r.nights).toEqual([]);
    const j = JSON.parse(readFileSync(r.json, 'utf8')) as ReportJson;
    expect(j.missing).toEqual(['No night between 2027-01-01 and the last: the roots hold 2026-11-20 to 2026-11-22.']);
    expect(readFileSync(r.index, 'utf8')).not.toContain('<svg');
    const bad = await runCli(['report', out, '--out', dir, '--from', '2026-13-01']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--from must be a calendar date')]);
    const noRuns = await runCli(['report', tempDir(), '--out', dir]);
    expect(noRuns.code).toBe(1);
    expect(noRuns.stderr).toMatch(/^adsnap report: no complete snapshot/);
    const buckets = await runCli(['report', out, '--out', dir, '--rank-buckets', '10,5']);
    expect([buckets.code, buckets.stderr]).toEqual([2, expect.stringContaining('ascending')]);
    const memory = await runCli(['report', out, '--out', dir], { env: { ADSNAP_REPORT_MEMORY: 'lots' } });
    expect([memory.code, memory.stderr]).toEqual([1, "adsnap report: ADSNAP_REPORT_MEMORY must be a size such as 768MB or 2GB, got 'lots'\n"]);
  });
});

/**
 * The page in a real browser: Debian's chromium, headless, driven by playwright-core (no browser
 * download). `.ci/run` installs chromium when it is missing; elsewhere the test says why it skips.
 */
const CHROMIUM = process.env.ADSNAP_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const browserTitle = haveChromium
  ? 'in headless chromium'
  : `in headless chromium — SKIPPED: no browser at ${CHROMIUM} (install Debian's chromium, as .ci/run does, or set ADSNAP_CHROMIUM)`;

describe.skipIf(!haveChromium)(browserTitle, () => {
  it('loads offline without console errors or requests, every chart has marks, the screenshot is not blank, and a phone needs no sideways scroll', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const context = await browser.newContext({ offline: true, viewport: { width: 1100, height: 900 } });
      const page = await context.newPage();
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      page.on('pageerror', (e) => void errors.push(String(e)));
      page.on('request', (r) => void requests.push(r.url()));
      const url = 'file://' + path.join(reportDir, 'index.html');
      await page.goto(url, { waitUntil: 'load' });
      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);

      // The callbacks run in the page: its DOM is reached through globalThis (the repo compiles without DOM types).
      type El = { closest(s: string): { id: string }; querySelectorAll(s: string): { length: number }; getBoundingClientRect(): { width: number; height: number } };
      const charts = await page.evaluate(() => {
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<El> } }).document;
        return [...doc.querySelectorAll('figure svg')].map((svg) => ({
          key: svg.closest('figure').id,
          marks: svg.querySelectorAll('g[class*="mark-"] path, g[class*="mark-"] rect, g[class*="mark-"] line').length,
          width: svg.getBoundingClientRect().width,
          height: svg.getBoundingClientRect().height,
        }));
      });
      expect(charts.length).toBeGreaterThanOrEqual(14);
      for (const c of charts) {
        expect(c.marks, c.key).toBeGreaterThan(0);
        expect(c.width, c.key).toBeGreaterThan(200);
        expect(c.height, c.key).toBeGreaterThan(50);
      }

      // Not blank: the browser itself decodes the screenshot and counts the pixels that are not white.
      const shot = (await page.screenshot({ fullPage: false })).toString('base64');
      const inked = await page.evaluate(async (b64) => {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const g = globalThis as any;
        const img = new g.Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const canvas = g.document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const px: Uint8ClampedArray = ctx.getImageData(0, 0, img.width, img.height).data;
        let ink = 0;
        for (let i = 0; i < px.length; i += 4) if (px[i]! < 235 || px[i + 1]! < 235 || px[i + 2]! < 235) ink++;
        return ink / (px.length / 4);
      }, shot);
      expect(inked).toBeGreaterThan(0.02);

      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow).toBeLessThanOrEqual(1);
      await context.close();
    } finally {
      await browser.close();
    }
  }, 60_000);
});
