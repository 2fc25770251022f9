/**
 * Synthetic ads.txt / app-ads.txt bodies. A file is planned first (which ad systems, which
 * seller ids: cheap, no strings) and rendered second, so sellers.json can ask "which publishers
 * name ad system A, with which id" without building their files.
 */
import {
  AD_SYSTEM_TAIL_COUNT, AD_SYSTEM_TAIL_SHARE, APP_AD_SYSTEMS, APP_CERT_SHARE, APP_DIRECT_SHARE, BOM_SHARE,
  CERT_SHARE, COMMENT_LINE_SHARE, CRLF_SHARE, DIRECT_SHARE, MALFORMED_LINE_SHARE, NO_FINAL_NEWLINE_SHARE, WEB_AD_SYSTEMS,
} from './calibration.js';
import { syntheticName } from './names.js';
import { Rng, WeightedTable, hash32 } from './prng.js';

export interface PlannedRecord {
  system: string;
  sellerId: string;
  relationship: 'DIRECT' | 'RESELLER';
  certId: string | null;
}

/** Intermediaries per ad system that RESELLER lines point at (their ids appear in sellers.json). */
export const INTERMEDIARIES_PER_SYSTEM = 8;

const webTable = new WeightedTable(WEB_AD_SYSTEMS);
const appTable = new WeightedTable(APP_AD_SYSTEMS);

/** The seller id `system` gives to `account` (a publisher's root, or `int<m>` for an intermediary). */
export function sellerIdFor(seed: number, system: string, account: string): string {
  const h = hash32(`${system}\u0000${account}`, seed);
  if (system === 'google.com') return `pub-${String(h).padStart(10, '0')}${String(h % 1000000).padStart(6, '0')}`;
  switch (h % 3) {
    case 0: return String(1000 + (h % 9_000_000));
    case 1: return h.toString(16).padStart(8, '0');
    default: return `${(h >>> 20) + 100}-${h & 0xffff}`;
  }
}

/** Certification authority id of an ad system: fixed per system, as TAG ids are. */
export function certIdFor(system: string): string {
  return (hash32(system, 1).toString(16).padStart(8, '0') + hash32(system, 2).toString(16).padStart(8, '0')).slice(0, 16);
}

export function pickAdSystem(seed: number, rng: Rng, app: boolean): string {
  if (rng.chance(AD_SYSTEM_TAIL_SHARE)) return syntheticName(seed, 'adsystem', rng.int(AD_SYSTEM_TAIL_COUNT));
  return (app ? appTable : webTable).pick(rng);
}

/** Plans `count` records for the publisher account `account` (deterministic in seed and account). */
export function planRecords(seed: number, account: string, count: number, app: boolean): PlannedRecord[] {
  const rng = Rng.for(seed, 'records', account);
  const direct = app ? APP_DIRECT_SHARE : DIRECT_SHARE;
  const cert = app ? APP_CERT_SHARE : CERT_SHARE;
  const out: PlannedRecord[] = [];
  for (let i = 0; i < count; i++) {
    const system = pickAdSystem(seed, rng, app);
    // The first record is always DIRECT: every real file with records names its own account.
    const relationship = i === 0 || rng.chance(direct) ? 'DIRECT' : 'RESELLER';
    const holder = relationship === 'DIRECT' ? account : `int${rng.int(INTERMEDIARIES_PER_SYSTEM)}`;
    out.push({ system, sellerId: sellerIdFor(seed, system, holder), relationship, certId: rng.chance(cert) ? certIdFor(system) : null });
  }
  return out;
}

export interface RenderOptions {
  /** Variable lines to write, already formatted (`subdomain=news.example.com`). */
  variables: string[];
  /** Allow BOM / CRLF / missing final newline / malformed lines (off for exact fixtures). */
  quirks: boolean;
}

export interface RenderedFile {
  text: string;
  /** Data records a spec-following parser keeps. */
  records: number;
  /** Variable lines written. */
  variables: number;
  /** Lines written that a parser must reject with an error. */
  malformed: number;
}

/** Renders a planned file to text, with the formatting habits seen in the corpus. */
export function renderAdsTxt(seed: number, account: string, plan: PlannedRecord[], options: RenderOptions): RenderedFile {
  const rng = Rng.for(seed, 'render', account);
  const quirks = options.quirks;
  const sep = rng.chance(0.6) ? ', ' : ',';
  const upperSystems = quirks && rng.chance(0.05);
  const lines: string[] = [];
  let malformed = 0;
  if (rng.chance(0.5)) lines.push(`# ads.txt for ${account}`, `# updated ${1 + rng.int(28)}.${1 + rng.int(12)}.2026`);
  for (const v of options.variables) lines.push(v);
  for (const r of plan) {
    if (rng.chance(COMMENT_LINE_SHARE)) lines.push(rng.chance(0.5) ? '' : `# ${r.system}`);
    const system = upperSystems ? r.system.toUpperCase() : r.system;
    let line = `${system}${sep}${r.sellerId}${sep}${r.relationship}`;
    if (r.certId) line += `${sep}${r.certId}`;
    if (rng.chance(0.02)) line += ` # ${r.relationship === 'DIRECT' ? 'direct' : 'via partner'}`;
    lines.push(line);
    if (quirks && rng.chance(MALFORMED_LINE_SHARE)) {
      // ads.txt 1.1 §3.4.2: fewer than three fields is not a record.
      lines.push(rng.chance(0.5) ? `${r.system}${sep}${r.sellerId}` : `${r.system} ${r.sellerId} ${r.relationship}`);
      malformed++;
    }
  }
  const eol = quirks && rng.chance(CRLF_SHARE) ? '\r\n' : '\n';
  let text = lines.join(eol);
  if (!(quirks && rng.chance(NO_FINAL_NEWLINE_SHARE))) text += eol;
  if (quirks && rng.chance(BOM_SHARE)) text = '\uFEFF' + text;
  return { text, records: plan.length, variables: options.variables.length, malformed };
}

export const PLACEHOLDER_FILE = '# ads.txt 1.1 §3.2.1: this site authorizes no seller\nplaceholder.example.com, placeholder, DIRECT, placeholder\n';

export function soft404Page(host: string): string {
  return `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Page not found – ${host}</title></head>\n<body>\n<h1>Oops! That page can’t be found.</h1>\n<p>It looks like nothing was found at this location. Maybe try a search?</p>\n<form action="/search"><input name="q"></form>\n</body>\n</html>\n`;
}
