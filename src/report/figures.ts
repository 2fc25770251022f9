/**
 * The figures of `adsnap report`, one module per section in sections/: each one a SQL query over
 * the shipped views (sql/views.sql), with a stable key, a title, what it counts, and how to draw
 * it. The queries read the nights in the report's window through the variables and macros of the
 * setup (setup.ts; written into report.json), so that any figure can be run again with
 * `adsnap sql ROOT… -c "<setup>; <figure sql>"`.
 *
 * Definitions used throughout: docs/reference/figures.md, implemented once as the views of
 * sql/views.sql's figures block (listed_sites, listed_apps, file_scopes, scoped_records,
 * ad_system_sites, headline_figures_at), which every figure reads (a *declaring* site, a *valid*
 * one, a scope); no status set is typed in the figures. Besides:
 * - "latest night" is the last night in the window (sections/nights.ts);
 * - the rank bucket comes from `targets.rank` (the list's rank), cut at `--rank-buckets`;
 * - a CTV app is one of a store all of whose listings are TV apps, or a Samsung TV listing (its
 *   URL tells it from the Galaxy Store's): ctv.ts;
 * - pooling's owners are registrable domains (owners.ts: a table setup_sql loads from a file
 *   beside report.json).
 */
import { adoptionSection } from './sections/adoption.js';
import { adSystemsSection } from './sections/ad-systems.js';
import { changesSection } from './sections/changes.js';
import { consentSection } from './sections/consent.js';
import { consistencySection } from './sections/consistency.js';
import { headlineSection } from './sections/headline.js';
import { poolingSection } from './sections/pooling.js';
import { qualitySection } from './sections/quality.js';
import { robotsSection } from './sections/robots.js';
import { sellersSection } from './sections/sellers.js';
import { variablesSection } from './sections/variables.js';
import { authorizationSection } from './sections/authorization.js';
import type { SectionDef } from './figure-types.js';

export type { ChartKind, ChartSpec, FigureDef, SectionDef } from './figure-types.js';
export type { ReportWindow } from './setup.js';
export { CTV_STORES, ctvAppSql } from './ctv.js';
export { SITE_CHANGES_SQL } from './sections/changes.js';

/** The report's sections, in page order: the headline figures first. */
export const SECTIONS: SectionDef[] = [
  headlineSection,
  adoptionSection,
  variablesSection,
  adSystemsSection,
  consistencySection,
  poolingSection,
  robotsSection,
  changesSection,
  sellersSection,
  qualitySection,
  consentSection,
  authorizationSection,
];
