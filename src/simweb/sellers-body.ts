/**
 * Synthetic sellers.json (IAB sellers.json 1.0) for an ad system: one PUBLISHER entry per
 * synthetic publisher whose file names this system as DIRECT (with the same seller id, so
 * `ads_records` joins `sellers`), plus the system's intermediaries that RESELLER lines use.
 * Only the first `maxPublishers` roots are scanned: sellers.json of a million-host web would be
 * a 100 MB file, which is a benchmark of its own, not of the crawl.
 */
import { INTERMEDIARIES_PER_SYSTEM, sellerIdFor } from './adstxt-body.js';
import { SELLER_CONFIDENTIAL_SHARE, SELLER_TYPE_WEIGHTS } from './calibration.js';
import { Rng, word } from './prng.js';

export interface SellersSource {
  seed: number;
  /** Publishers to scan: [root domain, its planned DIRECT ad systems]. */
  publishers(): Iterable<{ root: string; directSystems: ReadonlySet<string> }>;
}

export function sellersJson(system: string, source: SellersSource): { text: string; sellers: number } {
  const { seed } = source;
  const rng = Rng.for(seed, 'sellers', system);
  const sellers: Record<string, unknown>[] = [];
  for (const p of source.publishers()) {
    if (!p.directSystems.has(system)) continue;
    const confidential = rng.chance(SELLER_CONFIDENTIAL_SHARE);
    const type = rng.weighted(SELLER_TYPE_WEIGHTS) === 'BOTH' ? 'BOTH' : 'PUBLISHER';
    const s: Record<string, unknown> = { seller_id: sellerIdFor(seed, system, p.root), seller_type: type };
    if (confidential) s.is_confidential = 1;
    else Object.assign(s, { name: p.root.split('.')[0]!.replace(/-\w+$/, '').toUpperCase(), domain: p.root });
    sellers.push(s);
  }
  for (let m = 0; m < INTERMEDIARIES_PER_SYSTEM; m++) {
    const w = word(rng);
    sellers.push({ seller_id: sellerIdFor(seed, system, `int${m}`), seller_type: 'INTERMEDIARY', name: `${w} Media`, domain: `${w}media.com` });
  }
  const doc = {
    contact_email: `adops@${system}`,
    contact_address: `${1 + rng.int(900)} Market Street, San Francisco, CA`,
    version: '1.0',
    identifiers: [{ name: 'TAG-ID', value: system.length.toString(16).padStart(16, '0') }],
    sellers,
  };
  return { text: JSON.stringify(doc, null, 1) + '\n', sellers: sellers.length };
}
