import type { Row } from '../../schemas/tables.js';
import type { AdsRecord, AdsVariable } from '../parse/adstxt/index.js';
import type { Seller } from '../parse/sellers/index.js';
import type { Buyer, BuyersSummary } from '../parse/buyers/index.js';
import type { FetchRow } from '../fetch/types.js';
import type { FileStatus, Obtained } from '../../schemas/tables.js';

/**
 * Row builders: the only place where parser and fetch outputs are turned into table rows, so
 * every table's column mapping can be read in one file.
 */
export interface IssueLike {
  lineNo: number | null;
  severity: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  lineText: string | null;
}

/** contract §3: `parse_issues.line_text` keeps at most 256 characters. */
export const LINE_TEXT_MAX = 256;

export function issueRow(subject: string, fileKind: string, i: IssueLike): Row<'parse_issues'> {
  return {
    subject,
    file_kind: fileKind,
    line_no: i.lineNo,
    severity: i.severity,
    code: i.code,
    message: i.message,
    line_text: i.lineText === null ? null : i.lineText.length > LINE_TEXT_MAX ? i.lineText.slice(0, LINE_TEXT_MAX) : i.lineText,
  };
}

export type Via = 'root' | 'subdomain' | 'inventorypartnerdomain' | 'developer_url' | 'developer_url_parent' | 'ad_system' | 'intermediary' | 'store';

export interface FileRowInput {
  subject: string;
  fileKind: string;
  via: Via;
  url: string | null;
  status: FileStatus;
  /** How the content was obtained; null when nothing was asked (disallowed by robots.txt). */
  obtained?: Obtained | null;
  httpStatus: number | null;
  valid: boolean;
  robotsAllowed: boolean | null;
  records?: number;
  variables?: number;
  errors?: number;
  warnings?: number;
  bytes?: number | null;
  sha256?: string | null;
  contentType?: string | null;
  fetchedAt?: Date | null;
  ageDays?: number | null;
  etag?: string | null;
  lastModified?: string | null;
  freshUntil?: Date | null;
  /** Physical lines of a text body (LineCounter); null for sellers.json or without a body. */
  lines?: number | null;
}

export function fileRow(f: FileRowInput): Row<'files'> {
  return {
    subject: f.subject,
    file_kind: f.fileKind,
    via: f.via,
    url: f.url,
    status: f.status,
    obtained: f.obtained ?? null,
    http_status: f.httpStatus,
    valid: f.valid,
    robots_allowed: f.robotsAllowed,
    records: f.records ?? 0,
    variables: f.variables ?? 0,
    errors: f.errors ?? 0,
    warnings: f.warnings ?? 0,
    bytes: f.bytes ?? null,
    sha256: f.sha256 ?? null,
    content_type: f.contentType ?? null,
    fetched_at: f.fetchedAt ?? null,
    age_days: f.ageDays ?? null,
    etag: f.etag ?? null,
    last_modified: f.lastModified ?? null,
    fresh_until: f.freshUntil ?? null,
    lines: f.lines ?? null,
  };
}

export function hopRow(
  fromSubject: string,
  fromFileKind: string,
  kind: Row<'hops'>['kind'],
  toSubject: string,
  outcome: 'followed' | 'ignored',
  reason: string | null,
  lineNo: number | null,
): Row<'hops'> {
  return { from_subject: fromSubject, from_file_kind: fromFileKind, kind, to_subject: toSubject, outcome, reason, line_no: lineNo };
}

/** The columns of a record, as `ads_records` and `adsnap parse`'s NDJSON both name them (contract §1, §3). */
export function adsRecordColumns(r: AdsRecord) {
  return {
    line_no: r.lineNo,
    ad_system_domain: r.adSystemDomain,
    seller_account_id: r.sellerAccountId,
    relationship: r.relationship,
    cert_authority_id: r.certAuthorityId,
    extension: r.extension,
  };
}

/** The columns of a variable line, as `ads_variables` and `adsnap parse`'s NDJSON both name them. */
export function adsVariableColumns(v: AdsVariable) {
  return { line_no: v.lineNo, name: v.name, value: v.value, value_domain: v.valueDomain, value_country: v.valueCountry };
}

/** The header of a sellers.json read whole (IAB sellers.json 1.0). */
export function sellersFileRow(
  domain: string,
  status: string,
  h: { version: string | null; contactEmail: string | null; contactAddress: string | null; identifiers: readonly { name: string | null; value: string | null }[]; ext: string | null; sellers: number },
  asked: { location: 'spec' | 'table'; url: string } | null = null,
): Row<'sellers_files'> {
  return {
    ad_system_domain: domain,
    status,
    location: asked?.location ?? null,
    location_url: asked?.url ?? null,
    version: h.version,
    contact_email: h.contactEmail,
    contact_address: h.contactAddress,
    // Lists of strings: a missing name or value is an empty string, so the two stay aligned.
    identifier_names: h.identifiers.map((i) => i.name ?? ''),
    identifier_values: h.identifiers.map((i) => i.value ?? ''),
    ext: h.ext,
    sellers: h.sellers,
  };
}

/** A `buyers_files` row: the header of an ad system's buyers.json (the same columns as sellers_files). */
export function buyersFileRow(domain: string, status: string, h: BuyersSummary): Row<'buyers_files'> {
  const { location: _l, location_url: _u, sellers: _s, ...header } = sellersFileRow(domain, status, { ...h, sellers: h.buyers });
  return { ...header, buyers: h.buyers };
}

/** A `buyers` table row. */
export function buyerRow(adSystemDomain: string, b: Buyer): Row<'buyers'> {
  return { ad_system_domain: adSystemDomain, buyer_id: b.buyerId, buyer_type: b.buyerType, name: b.name, domain: b.domain, is_confidential: b.isConfidential, comment: b.comment };
}

/** A `sellers` table row for a seller of the ad system `adSystemDomain` (lower-cased host). */
export function sellerRow(adSystemDomain: string, s: Seller): Row<'sellers'> {
  return {
    ad_system_domain: adSystemDomain,
    seller_id: s.sellerId,
    seller_type: s.sellerType,
    name: s.name,
    domain: s.domain,
    is_confidential: s.isConfidential,
    is_passthrough: s.isPassthrough,
    comment: s.comment,
  };
}

// The fetch layer's FetchRow is the `fetches` row, column for column (a compile error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const FETCH_ROW_IS_FETCHES_ROW: Same<FetchRow, Row<'fetches'>> = true;
