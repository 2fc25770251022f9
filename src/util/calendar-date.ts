/**
 * Whether `s` is a calendar date written YYYY-MM-DD (ISO 8601's extended form): the month and
 * the day must exist, so 2026-02-30 is refused. The one check of snapshot dates, report windows
 * and the agents catalogue's date.
 */
export function isCalendarDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const t = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 10) === s;
}

/** Today's date (UTC) as YYYY-MM-DD: a crawl's snapshot date when none is given. */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}
