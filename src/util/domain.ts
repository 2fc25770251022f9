import { domainToASCII } from 'node:url';
import { getDomain } from 'tldts';

/**
 * Host and domain helpers shared by every stage. tldts holds the Public Suffix List; the private
 * section is included (spec-decisions: `user.github.io` is its own root). tldts does not convert
 * IDN, so hosts are made ASCII (punycode) first, or `münchen.de` and `xn--mnchen-3ya.de` would
 * be two keys (docs/choices.md#registrable-domains).
 */
const PSL_OPTIONS = { allowPrivateDomains: true, validateHostname: false } as const;

/** Lower-cased ASCII (punycode) form of a host name, without a trailing dot; '' when not convertible. */
export function toAsciiHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.endsWith('.')) h = h.slice(0, -1);
  // Fast path: plain ASCII needs no IDNA processing.
  if (/^[a-z0-9.-]*$/.test(h)) return h;
  return domainToASCII(h);
}

/** Registrable domain (PSL+1, private section included) of an ASCII host, or null (IPs, bare suffixes, localhost). */
export function rootDomain(host: string): string | null {
  return getDomain(host, PSL_OPTIONS);
}

/** True when `host` equals `root` or is a subdomain of it (both ASCII, lower-case). */
export function isWithin(host: string, root: string): boolean {
  return host === root || (host.length > root.length && host.endsWith(root) && host.charCodeAt(host.length - root.length - 1) === 46);
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * RFC 1123 host name check on an ASCII (punycode) name: 1–63-character labels of letters,
 * digits and inner hyphens, at least two labels, total ≤ 253, and a TLD that is not all digits.
 * Underscores are not allowed (they are not host names).
 */
export function isValidDnsName(asciiName: string): boolean {
  if (asciiName.length === 0 || asciiName.length > 253) return false;
  const labels = asciiName.split('.');
  if (labels.length < 2) return false;
  for (const l of labels) if (!LABEL.test(l)) return false;
  return !/^\d+$/.test(labels[labels.length - 1]!);
}
