/** The report's section 'Headline figures': its figures, each a query over the shipped views (sql/views.sql). */
import type { SectionDef } from '../figure-types.js';
import { headlineSql } from '../../sql/headline.js';

export const headlineSection: SectionDef = {
  key: 'headline',
  title: 'Headline figures',
  intro:
    "The latest night's figures a study would cite, each with its scope, its n and denominator, and for a share its Wilson 95% interval (view headline_figures; every word is defined in docs/reference/figures.md). Site figures are of the listed sites' own (root) ads.txt; apps, and the files reached from another file (subdomains, partners), are scopes of their own.",
  figures: [
    {
      key: 'headline.figures',
      title: 'Headline figures (latest night)',
      about: "View headline_figures (for one night: headline_figures_at): label (the words of the demo's summary), value (a share of the denominator, or a count), n, denominator, ci95 ([low, high], Wilson score interval at 95%), scope and definition. report.json has them under 'headline' by key.",
      // The latest night's rows are read once, by the setup (report_headline): figures that narrow a
      // word's population show the headline's number beside theirs from there (issue 39).
      sql: headlineSql("getvariable('report_to_night')", 'report_headline'),
    },
  ],
};
