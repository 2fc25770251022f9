/**
 * Reads the shared corpus and prints the figures that src/simweb/calibration.ts is built from.
 * Run: `npx tsx scripts/calibrate-simweb.ts` (ADSNAP_CORPUS=DIR to point elsewhere).
 * Every figure printed here names the corpus file(s) it came from; calibration.ts copies them
 * with the same provenance. The script is deliberately simple line counting, not the real parser:
 * it calibrates a mix, it does not judge files.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { getPublicSuffix } from 'tldts';
import { corpusDir } from '../bench/corpus.js';

const read = (p: string) => readFileSync(path.join(corpusDir, p));
const text = (p: string) => read(p).toString('utf8');
const pct = (n: number, d: number) => (d === 0 ? 0 : Math.round((n / d) * 10000) / 10000);

function quantiles(values: number[], qs: number[]): Record<string, number> {
  const s = [...values].sort((a, b) => a - b);
  const out: Record<string, number> = {};
  for (const q of qs) out[`p${Math.round(q * 100)}`] = s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return out;
}

/** Served files only: not vendor fragments, not historical `@date` versions. */
function servedFiles(dir: string): string[] {
  return readdirSync(path.join(corpusDir, dir)).filter((f) => f.endsWith('.txt') && !f.includes('@') && !f.includes('fragment'));
}

interface FileFigures { records: number; direct: number; withCert: number; comments: number; lines: number; vars: Record<string, number>; systems: Map<string, number> }

function scanAdsFile(body: string): FileFigures {
  const f: FileFigures = { records: 0, direct: 0, withCert: 0, comments: 0, lines: 0, vars: {}, systems: new Map() };
  for (const raw of body.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    f.lines++;
    if (raw.trimStart().startsWith('#')) { f.comments++; continue; }
    const line = raw.split('#')[0]!.trim();
    if (!line) continue;
    const eq = line.indexOf('=');
    if (eq > 0 && !line.slice(0, eq).includes(',')) {
      const name = line.slice(0, eq).trim().toLowerCase();
      f.vars[name] = (f.vars[name] ?? 0) + 1;
      continue;
    }
    const fields = line.split(';')[0]!.split(',').map((x) => x.trim());
    if (fields.length < 3 || !fields[0]) continue;
    f.records++;
    const sys = fields[0].toLowerCase();
    f.systems.set(sys, (f.systems.get(sys) ?? 0) + 1);
    if (fields[2]!.toUpperCase() === 'DIRECT') f.direct++;
    if (fields[3]) f.withCert++;
  }
  return f;
}

function adsFigures(dir: string) {
  const files = servedFiles(dir);
  const per = files.map((name) => scanAdsFile(text(`${dir}/${name}`)));
  const systems = new Map<string, number>();
  let records = 0, direct = 0, withCert = 0, comments = 0, lines = 0;
  const varFiles: Record<string, number> = {};
  for (const f of per) {
    records += f.records; direct += f.direct; withCert += f.withCert; comments += f.comments; lines += f.lines;
    for (const [k, v] of f.systems) systems.set(k, (systems.get(k) ?? 0) + v);
    for (const k of Object.keys(f.vars)) varFiles[k] = (varFiles[k] ?? 0) + 1;
  }
  const top = [...systems].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([d, n]) => [d, pct(n, records)]);
  return {
    files: files.length,
    recordsPerFile: quantiles(per.map((f) => f.records), [0.1, 0.25, 0.5, 0.75, 0.9, 0.99]),
    directShare: pct(direct, records),
    certShare: pct(withCert, records),
    commentLineShare: pct(comments, lines),
    filesWithVariable: Object.fromEntries(Object.entries(varFiles).map(([k, v]) => [k, pct(v, files.length)])),
    topAdSystems: top,
  };
}

function manifestAnomalies(prefix: string) {
  const rows = text('MANIFEST.tsv').split('\n').slice(1).map((l) => l.split('\t')).filter((r) => r[0]?.startsWith(prefix) && !r[0].includes('@') && !r[0].includes('fragment'));
  const count = (w: string) => rows.filter((r) => (r[5] ?? '').includes(w)).length;
  return { files: rows.length, bom: pct(count('utf8-bom'), rows.length), crlf: pct(count('crlf'), rows.length), noFinalNewline: pct(count('no-final-newline'), rows.length) };
}

function adoption() {
  const iab = new Set(text('lists/iab-adstxt-domains-2018-02-13.txt').split('\n').slice(4).map((s) => s.trim().toLowerCase()).filter(Boolean));
  const top = text('lists/top10000-domains-2019.txt').split('\n').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const share = (from: number, to: number) => pct(top.slice(from, to).filter((d) => iab.has(d)).length, top.slice(from, to).length);
  const withList = text('lists/bradlucas-domains-with-ads-txt.txt').split('\n').filter(Boolean).length;
  const withoutList = text('lists/bradlucas-domains-without-ads-txt.txt').split('\n').filter(Boolean).length;
  return { iabInTop1k: share(0, 1000), iabInTop1kTo10k: share(1000, 10000), bradlucasTop100: pct(withList, withList + withoutList) };
}

function tlds() {
  const rows = text('lists/top-1m-2025-02-tranco-like-first-50k.csv').split('\n').map((l) => l.split(',')[1]?.trim()).filter((d): d is string => !!d);
  const counts = new Map<string, number>();
  for (const d of rows) {
    const s = getPublicSuffix(d, { allowPrivateDomains: true }) ?? '?';
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([s, n]) => [s, pct(n, rows.length)]);
}

function wwwShare() {
  const hosts = text('lists/protego-top-websites-2019.txt').split('\n').map((s) => s.trim()).filter(Boolean);
  return pct(hosts.filter((h) => h.startsWith('www.')).length, hosts.length);
}

function robots() {
  const files = readdirSync(path.join(corpusDir, 'robots')).filter((f) => !f.includes('__'));
  let disallowAll = 0, sitemap = 0, html = 0, empty = 0, mentionsAds = 0;
  const sizes: number[] = [];
  const groups: number[] = [];
  for (const f of files) {
    const b = read(`robots/${f}`);
    sizes.push(b.length);
    const t = b.toString('latin1');
    if (b.length === 0 || !t.trim()) empty++;
    if (/^\s*<(!doctype|html)/i.test(t)) html++;
    if (/^sitemap\s*:/im.test(t)) sitemap++;
    if (/ads\.txt/i.test(t)) mentionsAds++;
    // "User-agent: *" immediately followed (possibly after other agents) by "Disallow: /" end of line.
    if (/user-agent\s*:\s*\*\s*[\r\n]+\s*disallow\s*:\s*\/\s*$/im.test(t)) disallowAll++;
    groups.push((t.match(/^\s*user-agent\s*:/gim) ?? []).length);
  }
  return {
    files: files.length, sizeBytes: quantiles(sizes, [0.1, 0.5, 0.9, 0.99]), userAgentLines: quantiles(groups, [0.5, 0.9]),
    disallowAllForStar: pct(disallowAll, files.length), withSitemap: pct(sitemap, files.length), html: pct(html, files.length),
    empty: pct(empty, files.length), mentionsAdsTxt: pct(mentionsAds, files.length),
  };
}

function apps() {
  const lines = text('lists/appgoblin-store-apps-developer-domains-2025-02.csv').split('\n').slice(1).filter(Boolean);
  const seen = new Map<string, string[]>();
  for (const l of lines) { const c = l.split(','); if (c[1]) seen.set(`${c[0]}:${c[1]}`, c); }
  const rows = [...seen.values()];
  const android = rows.filter((c) => c[0] === 'Android').length;
  const devDomains = rows.map((c) => c[8] ?? '').filter(Boolean);
  const appsPerDev = new Map<string, number>();
  for (const d of devDomains) appsPerDev.set(d, (appsPerDev.get(d) ?? 0) + 1);
  const devList = text('lists/app-ads-txt-developer-domains.txt').split('\n').map((s) => s.trim()).filter(Boolean);
  return {
    apps: rows.length, androidShare: pct(android, rows.length),
    appsPerDeveloper: quantiles([...appsPerDev.values()], [0.5, 0.9, 0.99]),
    devHostsWithSubdomain: pct(devList.filter((h) => h.split('.').length > 2 && !h.startsWith('www.')).length, devList.length),
    devHostsWithWww: pct(devList.filter((h) => h.startsWith('www.')).length, devList.length),
  };
}

function sellers() {
  let total = 0, publisher = 0, intermediary = 0, both = 0, confidential = 0;
  for (const f of readdirSync(path.join(corpusDir, 'sellers'))) {
    let j: { sellers?: Array<Record<string, unknown>> };
    try { j = JSON.parse(text(`sellers/${f}`)); } catch { continue; }
    for (const s of j.sellers ?? []) {
      total++;
      const t = String(s.seller_type ?? '').toUpperCase();
      if (t === 'PUBLISHER') publisher++; else if (t === 'INTERMEDIARY') intermediary++; else if (t === 'BOTH') both++;
      if (s.is_confidential === 1 || s.is_confidential === true) confidential++;
    }
  }
  return { sellers: total, publisher: pct(publisher, total), intermediary: pct(intermediary, total), both: pct(both, total), confidential: pct(confidential, total) };
}

const figures = {
  corpus: corpusDir,
  adstxt: adsFigures('adstxt'),
  adstxtAnomalies: manifestAnomalies('adstxt/'),
  appAds: adsFigures('app-ads'),
  appAdsAnomalies: manifestAnomalies('app-ads/'),
  adoption: adoption(),
  tlds: tlds(),
  wwwShareOfTopHosts: wwwShare(),
  robots: robots(),
  apps: apps(),
  sellers: sellers(),
};
process.stdout.write(JSON.stringify(figures, null, 1) + '\n');
