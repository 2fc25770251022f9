/**
 * `License:` lines of a robots.txt: RSL 1.0's discovery record, the URL of the site's RSL licence
 * (rslstandard.org, "Adding RSL to robots.txt"). RFC 9309 §2.2.4 lets a parser keep records other
 * than the crawl rules; they change no verdict. Read from the records the parser keeps as
 * `others`, like the usage signals (usage-signals.ts); a licence is site-wide, so its group does
 * not matter.
 */
import type { RobotsIssue, RobotsTxt } from './types.js';

export interface LicenseLine {
  /** The value as written. */
  url: string;
  /** Resolved against the robots.txt URL (a relative value is allowed by RFC 3986), null when no http(s) URL. */
  resolvedUrl: string | null;
  /** The licence is on the site's own host (the host the robots.txt was asked for). */
  sameHost: boolean;
  lineNo: number;
}

/** `robotsUrl`: where the body came from (relative values resolve against it); `host`: the site's. */
export function licenseLines(txt: RobotsTxt, robotsUrl: string, host: string): { licenses: LicenseLine[]; issues: RobotsIssue[] } {
  const licenses: LicenseLine[] = [];
  const issues: RobotsIssue[] = [];
  const base = new URL(robotsUrl);
  for (const o of txt.others) {
    if (o.name !== 'license') continue;
    const url = o.value.trim();
    const resolved = resolve(url, base);
    const issue = (severity: RobotsIssue['severity'], code: string, message: string) => issues.push({ lineNo: o.lineNo, severity, code, message, lineText: `License: ${o.value}`.slice(0, 256) });
    if (resolved === null) issue('warning', 'LICENSE_NOT_URL', `License '${url}' is not an http(s) URL (RSL 1.0); kept as written`);
    licenses.push({ url, resolvedUrl: resolved?.href ?? null, sameHost: resolved !== null && resolved.hostname === host, lineNo: o.lineNo });
  }
  return { licenses, issues };
}

function resolve(value: string, base: URL): URL | null {
  if (value === '') return null;
  try {
    const u = new URL(value, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}
