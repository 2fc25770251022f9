import { describe, expect, it } from 'vitest';
import type { FigureResult } from '../src/report/index.js';
import { CSV_NOTE, renderPage, shareText } from '../src/report/page.js';
import { headlineValue, type HeadlineFigure } from '../src/sql/headline.js';

/** How the page writes numbers (page.ts): shares in percent with their n, counts with separators, intervals, escapes. */
function page(f: Partial<FigureResult>, banner: string | null = null): string {
  const figure: FigureResult = { key: 'k.f', title: 'T', about: 'A', sql: 'SELECT 1', columns: [], rows: [], note: null, csv: '', svg: null, ...f };
  return renderPage({ generatedAt: '2026-11-23T00:00:00Z', roots: ['out'], nights: ['2026-11-22'], missing: [], banner, buckets: [], sections: [{ key: 's', title: '1. S', intro: 'I', figures: [figure] }] });
}
const cells = (html: string) => [...html.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);

describe('the page writes numbers for people', () => {
  it('a share with the columns of its numerator and denominator: "41.0% (170 of 415)"; thousands separators; no fraction', () => {
    const html = page({
      columns: ['sites', 'served', 'served_share', 'share_full', 'records'],
      rows: [{ sites: 40269, served: 1263, served_share: 0.0314, share_full: 0.0096, records: 1234567 }],
      shareOf: { served_share: ['served', 'sites'] },
    });
    expect(cells(html)).toEqual(['40,269', '1,263', '3.1% (1,263 of 40,269)', '0.96%', '1,234,567']);
  });

  it('tiny and near-whole shares are not rounded to 0% or 100%: two significant digits below 1%', () => {
    expect([shareText(0.0001, undefined, {}), shareText(0.9999, undefined, {}), shareText(0, undefined, {}), shareText(1, undefined, {})]).toEqual(['0.01%', '>99.9%', '0.0%', '100.0%']);
    expect([0.00043, 0.0026, 0.005, 0.0099, 0.00996, 0.014].map((v) => shareText(v, undefined, {}))).toEqual(['0.043%', '0.26%', '0.5%', '0.99%', '1.0%', '1.4%']);
    // With its counts, the percentage comes from them: 41,246 of 100,000 is 41.2%, though the share the SQL rounded to 0.4125 reads 41.3%.
    expect(shareText(0.4125, undefined, {})).toBe('41.3%');
    expect(shareText(0.4125, ['n', 'd'], { n: 41_246, d: 100_000 })).toBe('41.2% (41,246 of 100,000)');
    // A 0 denominator gives no "of 0".
    expect(shareText(0, ['n', 'd'], { n: 0, d: 0 })).toBe('0.0%');
  });

  it('headline rows: a share value with its n and denominator, the Wilson interval as a range, a count as a count', () => {
    const html = page({
      columns: ['key', 'value', 'n', 'denominator', 'ci95'],
      rows: [
        { key: 'adstxt_declaring', value: 0.4096, n: 170, denominator: 415, ci95: [0.3632, 0.4577] },
        { key: 'ad_systems_distinct_root', value: 1106, n: null, denominator: null, ci95: null },
      ],
    });
    expect(cells(html)).toEqual(['adstxt_declaring', '41.0% (170 of 415)', '170', '415', '36.3%–45.8%', 'ad_systems_distinct_root', '1,106', '', '', '']);
  });

  it('a small share and its interval keep two significant digits on the page, as the night summary writes them (one formatter)', () => {
    // The demo's placeholder-only share: 1 of 2,326 checkable, Wilson 95% interval 0.0076%–0.24%.
    const figure: HeadlineFigure = { value: 1 / 2326, n: 1, denominator: 2326, ci95: [0.0000759, 0.00243], scope: 's', definition: 'd' };
    const html = page({ columns: ['key', 'value', 'n', 'denominator', 'ci95'], rows: [{ key: 'placeholder_only', value: figure.value, n: 1, denominator: 2326, ci95: figure.ci95! }] });
    expect(cells(html)).toEqual(['placeholder_only', '0.043% (1 of 2,326)', '1', '2,326', '0.0076%–0.24%']);
    expect(headlineValue(figure)).toBe('0.043% (1 of 2,326; 95% CI 0.0076%–0.24%)');
    // report.json and the CSV keep the value itself; only the page rounds.
    expect(html).not.toContain('0.0–');
  });

  it('a wide table is in a focusable scrolling region; the banner and the CSV note are on the page', () => {
    const html = page({ columns: ['a'], rows: [{ a: 'x' }] }, 'Not the public web. This night was crawled with …');
    expect(html).toContain('<div class="scroll" role="region" tabindex="0" aria-label="T: table"><table>');
    expect(html).toContain('<p class="banner" role="note">Not the public web. This night was crawled with …</p>');
    expect(html).toContain(CSV_NOTE.replace(/'/g, '&#39;'));
    expect(page({ columns: ['a'], rows: [{ a: 'x' }] })).not.toContain('class="banner"');
  });
});
