/**
 * The plan of one synthetic site (a root, partner or developer domain): transport, canonical
 * host, what /ads.txt does, its records and referrals, its robots.txt. Pure function of
 * (seed, class, index); cheap (no strings rendered), so sellers.json can scan thousands.
 */
import {
  ADS_OUTCOME_WEIGHTS, ADS_RECORDS_QUANTILES, ADS_TXT_SHARE_REST, ADS_TXT_SHARE_TOP1K, APP_ADS_RECORDS_QUANTILES,
  DEVELOPER_APP_ADS_SHARE, NO_ADS_OUTCOME_WEIGHTS, ROOTS_PER_MANAGER, ROOTS_PER_PARTNER, TRANSPORT_WEIGHTS,
  VARIABLE_SHARE, WWW_CANONICAL_SHARE,
} from './calibration.js';
import { planRecords, type PlannedRecord } from './adstxt-body.js';
import { syntheticName, type NameClass } from './names.js';
import { Rng, fromQuantiles } from './prng.js';
import { robotsKind, type RobotsKind } from './robots-body.js';
import type { ExpectedFile, Transport } from './route.js';

export type AdsOutcome = keyof typeof ADS_OUTCOME_WEIGHTS | keyof typeof NO_ADS_OUTCOME_WEIGHTS;

export interface WebSize {
  seed: number;
  hosts: number;
}

export interface SiteSpec {
  cls: NameClass;
  index: number;
  root: string;
  transport: Transport;
  canonical: 'apex' | 'www';
  /** Outcome of GET /ads.txt (developers: of /app-ads.txt). */
  outcome: AdsOutcome;
  /** The file kind this site publishes: ads.txt for roots and partners, app-ads.txt for developers. */
  fileKind: 'ads.txt' | 'app-ads.txt';
  recordCount: number;
  /** The planned records, computed on first use (most requests, e.g. robots.txt, never need them). */
  readonly records: PlannedRecord[];
  /** subdomain= values: [host, has its own file]; the last may lie outside the root (must be ignored). */
  subdomains: Array<{ host: string; hasFile: boolean }>;
  partners: string[];
  variables: string[];
  manager: string | null;
  robots: RobotsKind;
}

export const SUBDOMAIN_LABELS = ['news', 'sport', 'video', 'shop', 'blog', 'games'] as const;

export function partnerCount(size: WebSize): number {
  return Math.max(3, Math.ceil(size.hosts / ROOTS_PER_PARTNER));
}
export function managerCount(size: WebSize): number {
  return Math.max(2, Math.ceil(size.hosts / ROOTS_PER_MANAGER));
}

export function siteSpec(size: WebSize, cls: NameClass, index: number): SiteSpec {
  const { seed } = size;
  const root = syntheticName(seed, cls, index);
  const rng = Rng.for(seed, 'site', root);
  const transport = rng.weighted(TRANSPORT_WEIGHTS);
  const canonical = cls === 'root' && rng.chance(WWW_CANONICAL_SHARE) ? 'www' : 'apex';
  let outcome: AdsOutcome;
  if (cls === 'partner') outcome = 'ok';
  else if (cls === 'developer') outcome = rng.chance(DEVELOPER_APP_ADS_SHARE) ? 'ok' : 'not_found';
  else {
    const has = rng.chance(index <= 1000 ? ADS_TXT_SHARE_TOP1K : ADS_TXT_SHARE_REST);
    outcome = has ? rng.weighted(ADS_OUTCOME_WEIGHTS) : rng.weighted(NO_ADS_OUTCOME_WEIGHTS);
  }
  const withRecords = outcome in ADS_OUTCOME_WEIGHTS && outcome !== 'placeholder' && outcome !== 'empty';
  const app = cls === 'developer';
  const count = withRecords ? fromQuantiles(rng, app ? APP_ADS_RECORDS_QUANTILES : ADS_RECORDS_QUANTILES) : 0;
  let plan: PlannedRecord[] | null = null;

  const variables: string[] = [];
  const subdomains: SiteSpec['subdomains'] = [];
  const partners: string[] = [];
  let manager: string | null = null;
  if (withRecords) {
    if (rng.chance(VARIABLE_SHARE.contact)) variables.push(`contact=adops@${root}`);
    if (rng.chance(VARIABLE_SHARE.ownerdomain)) variables.push(`OWNERDOMAIN=${root}`);
    if (rng.chance(VARIABLE_SHARE.managerdomain)) variables.push(`MANAGERDOMAIN=${syntheticName(seed, 'manager', rng.int(managerCount(size)))}`);
    // ads.txt 1.1 §3.4.2 SUBDOMAIN: only a root's ads.txt declares them.
    if (cls === 'root' && rng.chance(VARIABLE_SHARE.subdomain)) {
      const label = SUBDOMAIN_LABELS[rng.int(SUBDOMAIN_LABELS.length)]!;
      subdomains.push({ host: `${label}.${root}`, hasFile: rng.chance(0.8) });
      if (rng.chance(0.3)) subdomains.push({ host: `cdn.${root}`, hasFile: false });
      // A value outside the root: a crawler must record it as ignored (spec-decisions).
      if (rng.chance(0.2)) subdomains.push({ host: `${label}.${syntheticName(seed, 'root', 1 + rng.int(size.hosts))}`, hasFile: false });
      for (const s of subdomains) variables.push(`subdomain=${s.host}`);
    }
    // ads.txt 1.1 §3.4.2 INVENTORYPARTNERDOMAIN; partners name the next partner (one hop only).
    if (cls === 'partner' || rng.chance(VARIABLE_SHARE.inventorypartnerdomain)) {
      const n = partnerCount(size);
      const k = cls === 'partner' ? (index + 1) % n : rng.int(n);
      partners.push(syntheticName(seed, 'partner', k));
      for (const p of partners) variables.push(`inventorypartnerdomain=${p}`);
    }
  }
  if (outcome === 'redirect_out' || outcome === 'redirect_out_twice') manager = syntheticName(seed, 'manager', rng.int(managerCount(size)));
  return {
    cls, index, root, transport, canonical, outcome, fileKind: app ? 'app-ads.txt' : 'ads.txt', recordCount: count, subdomains, partners,
    variables, manager, robots: robotsKind(seed, root),
    get records() {
      return (plan ??= planRecords(seed, root, count, app));
    },
  };
}

/** The plan of a declared subdomain's own file: its own records, and (rarely) a nested subdomain= that must not be followed. */
export function subdomainRecords(seed: number, host: string): { records: PlannedRecord[]; variables: string[] } {
  const rng = Rng.for(seed, 'subsite', host);
  const records = planRecords(seed, host, 1 + rng.int(40), false);
  const variables = rng.chance(0.3) ? [`subdomain=deeper.${host}`] : [];
  return { records, variables };
}

/** files.status a correct crawl records for an outcome (contract §3, spec-decisions). */
export function expectedStatus(outcome: AdsOutcome): string {
  switch (outcome) {
    case 'ok': case 'redirect_out': case 'utf16': case 'invalid_utf8': return 'ok';
    case 'wrong_content_type': return 'invalid_content_type';
    case 'redirect_out_twice': return 'redirect_error';
    case 'placeholder': return 'placeholder';
    case 'empty': return 'empty';
    case 'forbidden': return 'unauthorized';
    case 'server_error': return 'http_error';
    case 'soft_404': return 'html';
    case 'not_found': return 'not_found';
  }
}

export function expectedFile(spec: SiteSpec): ExpectedFile {
  const status = expectedStatus(spec.outcome);
  const hasBody = status === 'ok' || status === 'invalid_content_type';
  return hasBody ? { status, records: spec.recordCount, variables: spec.variables.length } : { status };
}
