/**
 * `--domains PROVIDER:SELECTOR`: a top list named by its provider and date instead of a path
 * (docs/guide/crawling.md#top-lists-by-name). Parsed and checked here, before anything is fetched.
 */
import { isCalendarDate } from '../../util/calendar-date.js';

export const LIST_PROVIDERS = ['tranco', 'crux', 'majestic', 'radar'] as const;
export type ListProvider = (typeof LIST_PROVIDERS)[number];

export type ListSelector =
  | { provider: 'tranco'; kind: 'latest' }
  | { provider: 'tranco'; kind: 'date'; date: string }
  | { provider: 'tranco'; kind: 'id'; id: string }
  | { provider: 'crux'; kind: 'month'; month: string; country: string | null }
  | { provider: 'majestic'; kind: 'latest' }
  | { provider: 'radar'; kind: 'latest' }
  | { provider: 'radar'; kind: 'date'; date: string };

export class ListSelectorError extends TypeError {
  readonly code = 'LIST_SELECTOR_INVALID';
}

const FORMS: Record<ListProvider, string> = {
  tranco: 'tranco:latest, tranco:YYYY-MM-DD or tranco:id:ID',
  crux: 'crux:YYYYMM or crux:YYYYMM:CC',
  majestic: 'majestic:latest',
  radar: 'radar:latest or radar:YYYY-MM-DD',
};

/** True when `spec` names a list by provider (`tranco:…`), not a path. A file so named is given as `./tranco:…`. */
export function isNamedList(spec: string): boolean {
  const colon = spec.indexOf(':');
  return colon > 0 && (LIST_PROVIDERS as readonly string[]).includes(spec.slice(0, colon).toLowerCase());
}

/** Throws ListSelectorError naming the forms the provider takes. */
export function parseListSelector(spec: string): ListSelector {
  const [rawProvider = '', ...rest] = spec.split(':');
  const provider = rawProvider.toLowerCase() as ListProvider;
  if (!LIST_PROVIDERS.includes(provider)) throw new ListSelectorError(`unknown list provider ${JSON.stringify(rawProvider)} (known: ${LIST_PROVIDERS.join(', ')})`);
  const sel = parseFor(provider, rest);
  if (sel === null) throw new ListSelectorError(`${JSON.stringify(spec)} is not a ${provider} list: use ${FORMS[provider]}`);
  return sel;
}

function parseFor(provider: ListProvider, rest: string[]): ListSelector | null {
  const [a = '', b, c] = rest;
  if (provider === 'tranco') {
    if (rest.length === 1 && a === 'latest') return { provider, kind: 'latest' };
    if (rest.length === 1 && isCalendarDate(a)) return { provider, kind: 'date', date: a };
    if (rest.length === 2 && a === 'id' && /^[A-Za-z0-9]{1,32}$/.test(b!)) return { provider, kind: 'id', id: b! };
    return null;
  }
  if (provider === 'crux') {
    if (!isMonth(a) || c !== undefined) return null;
    if (b === undefined) return { provider, kind: 'month', month: a, country: null };
    return /^[A-Za-z]{2}$/.test(b) ? { provider, kind: 'month', month: a, country: b.toLowerCase() } : null;
  }
  if (provider === 'majestic') return rest.length === 1 && a === 'latest' ? { provider, kind: 'latest' } : null;
  if (rest.length === 1 && a === 'latest') return { provider, kind: 'latest' };
  return rest.length === 1 && isCalendarDate(a) ? { provider, kind: 'date', date: a } : null;
}

/** YYYYMM, a real month from 2017 on (the CrUX top lists start in 2021; the bound only rejects typos). */
function isMonth(s: string): boolean {
  if (!/^\d{6}$/.test(s)) return false;
  const m = Number(s.slice(4));
  return Number(s.slice(0, 4)) >= 2017 && m >= 1 && m <= 12;
}

/** The selector as written canonically (the cache key of a fixed list, the manifest's `selector`). */
export function selectorText(s: ListSelector): string {
  switch (s.kind) {
    case 'latest':
      return 'latest';
    case 'date':
      return s.date;
    case 'id':
      return `id:${s.id}`;
    case 'month':
      return s.country ? `${s.month}:${s.country}` : s.month;
  }
}
