import { isValidDnsName, rootDomain, toAsciiHost } from '../util/domain.js';

/**
 * app-ads.txt 1.0, "Translate developer URL to an app-ads.txt path" and Appendix A/B:
 * from the developer website URL published in a store listing, derive the hosts whose
 * `/app-ads.txt` a verifier crawls, in order.
 */

/** How a host was reached from the developer URL (the `files.via` / `hops.kind` values). */
export type DeveloperUrlVia = 'developer_url' | 'developer_url_parent';

export interface AppAdsTxtHost {
  host: string;
  via: DeveloperUrlVia;
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Host name of a developer URL, lower-cased ASCII, or null when the URL is unusable (empty,
 * not http(s), an IP address, no host). Bulk app data often carries a bare domain
 * (`example.com`) instead of a URL, so a value without a scheme is read as `https://value`.
 */
export function developerUrlHost(developerUrl: string): string | null {
  const raw = developerUrl.trim();
  if (raw === '') return null;
  let withScheme: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) withScheme = raw;
  else if (raw.startsWith('//')) withScheme = `https:${raw}`;
  else if (/^[a-z][a-z0-9+.-]*:/i.test(raw) && !/^[^:/]+:\d+(?:[/?#]|$)/.test(raw)) return null; // mailto:, javascript:, …
  else withScheme = `https://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = toAsciiHost(url.hostname);
  if (host === '' || host.startsWith('[') || IPV4.test(host)) return null;
  return isValidDnsName(host) ? host : null;
}

/**
 * The hosts whose app-ads.txt is crawled for a developer URL, in crawl order, deduplicated;
 * null when the URL is unusable (empty, not http(s), an IP address, a bare public suffix…).
 *
 * Step 2: keep at most one label in front of the registrable domain (PSL+1; the private
 * section counts, so `studio.github.io` is its own registrable domain). Step 3: drop a
 * remaining `www.` or `m.` label. "Verifiers must use the app-ads.txt file found on the
 * subdomain …, only defaulting to the … subdomain's parent if no file is found": the subdomain
 * comes first (`developer_url`), then the registrable domain (`developer_url_parent`).
 */
export function appAdsTxtHosts(developerUrl: string): AppAdsTxtHost[] | null {
  const host = developerUrlHost(developerUrl);
  if (host === null) return null;
  const root = rootDomain(host);
  if (root === null || !isValidDnsName(root)) return null;
  let candidate = root;
  if (host !== root) {
    const prefix = host.slice(0, host.length - root.length - 1);
    const first = prefix.slice(prefix.lastIndexOf('.') + 1);
    // Appendix A: `subdomain.www.example.com` → `www.example.com` → `example.com`.
    if (first !== 'www' && first !== 'm') candidate = `${first}.${root}`;
  }
  const hosts: AppAdsTxtHost[] = [{ host: candidate, via: 'developer_url' }];
  if (candidate !== root) hosts.push({ host: root, via: 'developer_url_parent' });
  return hosts;
}

/**
 * The app-ads.txt URLs for a developer URL, in crawl order: for each host, HTTPS first, then
 * HTTP ("fetch the HTTPS version of the URL first, falling back to the HTTP version").
 * Empty when the developer URL is unusable. This is what `adsnap app-ads-url` prints.
 */
export function appAdsTxtUrls(developerUrl: string): string[] {
  const hosts = appAdsTxtHosts(developerUrl);
  if (hosts === null) return [];
  return hosts.flatMap(({ host }) => [`https://${host}/app-ads.txt`, `http://${host}/app-ads.txt`]);
}
