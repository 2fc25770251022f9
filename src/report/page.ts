/**
 * The report page: one self-contained HTML file. Charts are inline SVG, the style sheet is inline,
 * there is no script and nothing is fetched (fonts are the reader's system fonts), so the page
 * opens offline, prints (figures are not split across pages) and reads on a phone (charts and
 * tables scroll or scale within the screen's width).
 */
import { visible } from '../text/visible.js';
import { intervalText, percentText } from '../text/percent.js';
import type { FigureResult, Row } from './figure-types.js';

export interface PageInput {
  generatedAt: string;
  roots: readonly string[];
  nights: string[];
  missing: string[];
  /** Said above everything when the nights were not crawled from the public web (provenance.ts). */
  banner: string | null;
  buckets: string[];
  sections: { key: string; title: string; intro: string; figures: FigureResult[] }[];
}

/** The methods line on the CSVs (text/csv.ts): their cells come from the web. */
export const CSV_NOTE =
  "The CSVs are safe to open in a spreadsheet: a text cell that starts with =, +, -, @, a tab or a carriage return and is not a number (a seller name, a seller id, a domain as a file wrote it) is written with a leading ' and quoted, so that it shows as text instead of running as a formula (OWASP, CSV Injection). Numbers are written as they are. report.json and adsnap sql keep every value exactly as published.";

/** Rows shown per table on the page; every row is in the CSV and report.json. */
const TABLE_ROWS = 30;

const CSS = `
:root { color-scheme: light; --fg: #111827; --muted: #4b5563; --line: #e5e7eb; --accent: #1d4ed8; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 960px; padding: 1rem; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: var(--fg); background: #fff; }
h1 { font-size: 1.6rem; margin: .5rem 0; }
h2 { font-size: 1.3rem; margin-top: 2.5rem; border-bottom: 2px solid var(--line); padding-bottom: .25rem; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 .25rem; }
p, li { color: var(--muted); }
.meta { font-size: .9rem; }
.missing { border-left: 4px solid #d97706; background: #fffbeb; padding: .5rem .75rem; color: #78350f; }
.banner { border: 2px solid #b91c1c; background: #fef2f2; padding: .6rem .9rem; color: #7f1d1d; font-weight: 600; }
figure { margin: 0 0 1.5rem; break-inside: avoid; page-break-inside: avoid; }
figure .chart { max-width: 680px; }
figure svg { display: block; width: 100%; height: auto; }
.note { font-style: italic; }
/* A table wider than the text column takes the window's width, centred on the column, and past
   that scrolls sideways inside its box (focusable, so keys scroll it too): nothing is cut at the
   right. Shadows at the edges say there is more to scroll to (backgrounds that scroll with the
   content cover them at the ends); the first column stays put, so a row keeps its name. */
.scroll { overflow-x: auto; width: max-content; min-width: 100%; max-width: calc(100vw - 2rem); position: relative; left: 50%; transform: translateX(-50%);
  background: linear-gradient(to right, #fff 30%, #fff0) left / 2rem 100% no-repeat local, linear-gradient(to left, #fff 30%, #fff0) right / 2rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, #0003, #0000) left / .75rem 100% no-repeat scroll, radial-gradient(farthest-side at 100% 50%, #0003, #0000) right / .75rem 100% no-repeat scroll; }
.scroll:focus-visible { outline: 2px solid var(--accent); }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: .2rem .5rem; text-align: left; vertical-align: top; }
th { white-space: nowrap; }
td.n { white-space: nowrap; }
th:first-child, td:first-child { position: sticky; left: 0; background: #fff; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
details { font-size: .8rem; }
pre { white-space: pre-wrap; background: #f9fafb; padding: .5rem; border: 1px solid var(--line); }
a { color: var(--accent); }
nav ol { columns: 2; }
@media (max-width: 600px) { body { padding: .5rem; font-size: 14px; } nav ol { columns: 1; } }
@media print { body { max-width: none; } details, nav { display: none; } .scroll { overflow: visible; width: auto; max-width: none; left: 0; transform: none; background: none; } table { font-size: .7rem; } a { color: inherit; text-decoration: none; } h2 { break-before: auto; } }
`;

export function renderPage(p: PageInput): string {
  const span = p.nights.length === 0 ? 'no night' : p.nights.length === 1 ? `one night, ${p.nights[0]}` : `${p.nights.length} nights, ${p.nights[0]} to ${p.nights[p.nights.length - 1]}`;
  const parts: string[] = [];
  parts.push(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`);
  parts.push(`<title>adsnap report — ${esc(span)}</title><style>${CSS}</style></head><body>`);
  parts.push(`<header><h1>The advertising supply chain: ${esc(span)}</h1>`);
  parts.push(`<p class="meta">Generated ${esc(p.generatedAt)} by <code>adsnap report</code> from ${p.roots.map((r) => `<code>${esc(r)}</code>`).join(', ')}. Rank buckets: ${p.buckets.map(esc).join(', ')}. Every figure is a query over the snapshot's views: its SQL is under the figure, and <code>report.json</code> holds every number by key.</p>`);
  if (p.banner) parts.push(`<p class="banner" role="note">${esc(p.banner)}</p>`);
  for (const m of p.missing) parts.push(`<p class="missing">${esc(m)}</p>`);
  parts.push(`</header><nav><ol>${p.sections.map((s) => `<li><a href="#${s.key}">${esc(s.title.replace(/^\d+\.\s*/, ''))}</a></li>`).join('')}</ol></nav><main>`);
  for (const s of p.sections) {
    parts.push(`<section id="${s.key}"><h2>${esc(s.title)}</h2><p>${esc(s.intro)}</p>`);
    for (const f of s.figures) parts.push(figureHtml(f));
    parts.push(`</section>`);
  }
  parts.push(`</main><footer><p class="meta">To reproduce a figure: <code>adsnap sql ROOT… -c "…"</code> with the statements of <code>report.json</code>'s <code>setup_sql</code> first, then the figure's SQL.</p>`);
  parts.push(`<p class="meta">${esc(CSV_NOTE)}</p></footer></body></html>\n`);
  return parts.join('\n');
}

function figureHtml(f: FigureResult): string {
  const out: string[] = [`<figure id="${esc(f.key)}" data-key="${esc(f.key)}">`, `<h3>${esc(f.title)}</h3>`, `<p>${esc(f.about)}</p>`];
  if (f.svg) out.push(`<div class="chart">${inlineSvg(f.svg, f.title)}</div>`);
  if (f.note) out.push(`<p class="note">${esc(f.note)}</p>`);
  if (f.rows.length > 0) {
    const shown = f.rows.slice(0, TABLE_ROWS);
    out.push(`<div class="scroll" role="region" tabindex="0" aria-label="${esc(f.title)}: table"><table><thead><tr>${f.columns.map((c) => `<th scope="col">${esc(c)}</th>`).join('')}</tr></thead><tbody>`);
    for (const r of shown) out.push(`<tr>${f.columns.map((c) => cell(f, c, r)).join('')}</tr>`);
    out.push(`</tbody></table></div>`);
    const more = f.rows.length > shown.length ? `${f.rows.length - shown.length} more rows in ` : 'All rows in ';
    out.push(`<p class="meta">${more}<a href="${esc(f.key)}.csv">${esc(f.key)}.csv</a>.</p>`);
  }
  out.push(`<details><summary>SQL</summary><pre>${esc(f.sql)}</pre></details></figure>`);
  return out.join('\n');
}

/** Vega's SVG sized by its viewBox (scales down on narrow screens), with an accessible name. */
function inlineSvg(svg: string, title: string): string {
  return svg.replace(/^<svg([^>]*)>/, (_m, attrs: string) => {
    const a = attrs.replace(/\s(width|height)="[^"]*"/g, '');
    return `<svg${a} role="img" aria-label="${esc(title)}">`;
  });
}

function cell(f: FigureResult, column: string, row: Row): string {
  const v = row[column] ?? null;
  if (v === null) return '<td></td>';
  const interval = ciText(column, v);
  if (interval) return `<td class="n">${interval}</td>`;
  if (typeof v === 'number') return `<td class="n">${isShare(column, row) ? shareText(v, f.shareOf?.[column] ?? headlineOf(column, row), row) : numberText(v)}</td>`;
  if (typeof v === 'boolean') return `<td>${v ? 'yes' : 'no'}</td>`;
  // Text from the web: markup escaped, control characters and escape sequences shown (text/visible.ts).
  return `<td>${esc(visible(typeof v === 'string' ? v : JSON.stringify(v)))}</td>`;
}

/**
 * A share column holds a fraction in [0, 1] (figures.ts names them `share`, `…_share` or
 * `share_…`): shown in percent. So is a headline figure's `value` when the row has a denominator
 * (report.json's headline rows: value, n, denominator, ci95; a count has no denominator).
 */
function isShare(column: string, row: Row): boolean {
  return column === 'share' || column.endsWith('_share') || column.startsWith('share_') || headlineOf(column, row) !== undefined;
}

function headlineOf(column: string, row: Row): readonly [string, string] | undefined {
  return column === 'value' && typeof row.denominator === 'number' && typeof row.n === 'number' ? ['n', 'denominator'] : undefined;
}

/** A Wilson interval column (`ci95`: [low, high] shares) as "39.6%–42.4%", or "0.043%–1.4%" for a small share (text/percent.ts). */
function ciText(column: string, v: unknown): string | null {
  if (column !== 'ci95' || !Array.isArray(v) || v.length !== 2 || !v.every((x) => typeof x === 'number')) return null;
  return intervalText(v[0] as number, v[1] as number);
}

/** Thousands separators; at most 4 decimals for what is not a whole number. */
export function numberText(v: number): string {
  return Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 4 });
}

/**
 * A share in percent as the night's summary writes it (text/percent.ts: one decimal, two
 * significant digits below 1%), and its count out of its denominator when the figure names both
 * columns (FigureDef.shareOf) and the denominator is not 0: "41.0% (170 of 415)", "0.26% (3 of 1,160)".
 */
export function shareText(v: number, of: readonly [string, string] | undefined, row: Row): string {
  const [n, d] = of ? [row[of[0]], row[of[1]]] : [null, null];
  if (typeof n !== 'number' || typeof d !== 'number' || d <= 0) return percentText(v);
  // From the counts, not the share the SQL rounded to 4 decimals: one rounding, not two.
  return `${percentText(n / d)} (${numberText(n)} of ${numberText(d)})`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
