/**
 * How a share (a fraction in [0, 1]) reads in percent, wherever a person reads it: the night's
 * summary (src/sql/headline.ts) and the report page (src/report/page.ts) use this one formatter,
 * so that a figure reads the same in both. report.json and the CSVs keep the full value.
 *
 * One decimal from 1% up; below 1%, two significant digits, so that a small share and the bounds
 * of its interval keep their size ("0.043%", not "0.0%"). A share below 1 that would round to
 * 100.0% reads ">99.9%", so that only a whole reads as one.
 */
export function percentText(share: number): string {
  if (!Number.isFinite(share)) return String(share);
  const p = 100 * share;
  if (p === 0) return '0.0%';
  if (Math.abs(p) < 1) {
    const two = Number(p.toPrecision(2));
    // 0.996% rounds to 1.0 at two digits: from there one decimal, as above 1%.
    if (Math.abs(two) < 1) return `${two.toLocaleString('en-US', { maximumSignificantDigits: 2 })}%`;
  }
  const fixed = p.toFixed(1);
  return share < 1 && fixed === '100.0' ? '>99.9%' : `${fixed}%`;
}

/** A 95% interval of a share, each bound in percent: "0.043%–1.4%". */
export function intervalText(low: number, high: number): string {
  return `${percentText(low)}–${percentText(high)}`;
}
