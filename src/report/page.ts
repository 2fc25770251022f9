/**
 * The report page: one self-contained HTML file. Charts are inline SVG, the style sheet is inline,
 * there is no script and nothing is fetched (fonts are the reader's system fonts), so the page
 * opens offline, prints (figures are not split across pages) and reads on a phone (charts and
 * tables scroll or scale within the screen's width).
 */
import type { Json } from '@duckdb/node-api';
import type { FigureResult } from './index.js';

export interface PageInput {
  generatedAt: string;
  roots: readonly string[];
  nights: string[];
  missing: string[];
  buckets: string[];
  sections: { key: string; title: string; intro: string; figures: FigureResult[] }[];
}

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
figure { margin: 0 0 1.5rem; break-inside: avoid; page-break-inside: avoid; }
figure .chart { max-width: 680px; }
figure svg { display: block; width: 100%; height: auto; }
.note { font-style: italic; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: .2rem .5rem; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
details { font-size: .8rem; }
pre { white-space: pre-wrap; background: #f9fafb; padding: .5rem; border: 1px solid var(--line); }
a { color: var(--accent); }
nav ol { columns: 2; }
@media (max-width: 600px) { body { padding: .5rem; font-size: 14px; } nav ol { columns: 1; } }
@media print { body { max-width: none; } details, nav { display: none; } a { color: inherit; text-decoration: none; } h2 { break-before: auto; } }
`;

export function renderPage(p: PageInput): string {
  const span = p.nights.length === 0 ? 'no night' : p.nights.length === 1 ? `one night, ${p.nights[0]}` : `${p.nights.length} nights, ${p.nights[0]} to ${p.nights[p.nights.length - 1]}`;
  const parts: string[] = [];
  parts.push(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`);
  parts.push(`<title>adsnap report — ${esc(span)}</title><style>${CSS}</style></head><body>`);
  parts.push(`<header><h1>The advertising supply chain: ${esc(span)}</h1>`);
  parts.push(`<p class="meta">Generated ${esc(p.generatedAt)} by <code>adsnap report</code> from ${p.roots.map((r) => `<code>${esc(r)}</code>`).join(', ')}. Rank buckets: ${p.buckets.map(esc).join(', ')}. Every figure is a query over the snapshot's views: its SQL is under the figure, and <code>report.json</code> holds every number by key.</p>`);
  for (const m of p.missing) parts.push(`<p class="missing">${esc(m)}</p>`);
  parts.push(`</header><nav><ol>${p.sections.map((s) => `<li><a href="#${s.key}">${esc(s.title.replace(/^\d+\.\s*/, ''))}</a></li>`).join('')}</ol></nav><main>`);
  for (const s of p.sections) {
    parts.push(`<section id="${s.key}"><h2>${esc(s.title)}</h2><p>${esc(s.intro)}</p>`);
    for (const f of s.figures) parts.push(figureHtml(f));
    parts.push(`</section>`);
  }
  parts.push(`</main><footer><p class="meta">To reproduce a figure: <code>adsnap sql ROOT… -c "…"</code> with the statements of <code>report.json</code>'s <code>setup_sql</code> first, then the figure's SQL.</p></footer></body></html>\n`);
  return parts.join('\n');
}

function figureHtml(f: FigureResult): string {
  const out: string[] = [`<figure id="${esc(f.key)}" data-key="${esc(f.key)}">`, `<h3>${esc(f.title)}</h3>`, `<p>${esc(f.about)}</p>`];
  if (f.svg) out.push(`<div class="chart">${inlineSvg(f.svg, f.title)}</div>`);
  if (f.note) out.push(`<p class="note">${esc(f.note)}</p>`);
  if (f.rows.length > 0) {
    const shown = f.rows.slice(0, TABLE_ROWS);
    out.push(`<div class="scroll"><table><thead><tr>${f.columns.map((c) => `<th scope="col">${esc(c)}</th>`).join('')}</tr></thead><tbody>`);
    for (const r of shown) out.push(`<tr>${f.columns.map((c) => cell(r[c] ?? null)).join('')}</tr>`);
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

function cell(v: Json | null): string {
  if (v === null) return '<td></td>';
  if (typeof v === 'number') {
    const text = Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 4 });
    return `<td class="n">${text}</td>`;
  }
  if (typeof v === 'boolean') return `<td>${v ? 'yes' : 'no'}</td>`;
  return `<td>${esc(typeof v === 'string' ? v : JSON.stringify(v))}</td>`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
