/**
 * Which nights of a report were not crawled from the public web. The run manifest's `network`
 * section (src/fetch/network-manifest.ts) records every exemption from the address guard: the
 * `--connect-to` rules that sent every request to one address (how `adsnap demo` and `adsnap
 * simweb`'s printed flags reach the simulated web), the `--allow-addresses` networks (the
 * simulated web behind its own DNS, `simweb --dns`), and a guard turned off. A night crawled
 * with any of them describes that web, not the internet, and the page says so at the top, so a
 * figure handed on without its context is not cited as a measurement of the web.
 */
import { readFile } from 'node:fs/promises';
import { completedRuns } from '../store/run-manifests.js';

export interface SimulatedNight {
  night: string;
  /** What the manifest says, e.g. "--connect-to :443:127.0.0.1:41234". */
  reasons: string[];
}

/** The nights among `nights` with a run whose manifest names an address-guard exemption, with what it names. */
export async function simulatedNights(roots: readonly string[], nights: readonly string[]): Promise<SimulatedNight[]> {
  const wanted = new Set(nights);
  const found = new Map<string, Set<string>>();
  for (const root of roots) {
    for (const run of await completedRuns(root)) {
      if (!wanted.has(run.snapshotDate)) continue;
      const reasons = exemptions(await readNetwork(run.manifestPath));
      if (reasons.length === 0) continue;
      const set = found.get(run.snapshotDate) ?? new Set<string>();
      for (const r of reasons) set.add(r);
      found.set(run.snapshotDate, set);
    }
  }
  return [...found].sort(([a], [b]) => (a < b ? -1 : 1)).map(([night, set]) => ({ night, reasons: [...set] }));
}

async function readNetwork(manifestPath: string): Promise<Record<string, unknown> | null> {
  try {
    const m = JSON.parse(await readFile(manifestPath, 'utf8')) as { network?: unknown };
    return typeof m.network === 'object' && m.network !== null ? (m.network as Record<string, unknown>) : null;
  } catch {
    return null; // completedRuns read it a moment ago; a manifest that vanished since says nothing
  }
}

/** The exemptions a manifest's network section names, in the flags' own spelling. */
export function exemptions(network: Record<string, unknown> | null): string[] {
  if (!network) return [];
  const out: string[] = [];
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  for (const rule of list(network.connect_to)) out.push(`--connect-to ${rule}`);
  for (const cidr of list(network.allow_addresses)) out.push(`--allow-addresses ${cidr}`);
  if (network.block_private_addresses === false) out.push('the private-address guard off');
  return out;
}

/** The banner's sentence for the page (page.ts) and report.json. */
export function simulatedBanner(s: readonly SimulatedNight[], allNights: number): string | null {
  if (s.length === 0) return null;
  const which = s.length === allNights ? (allNights === 1 ? 'This night was' : `All ${allNights} nights were`) : `${s.length} of ${allNights} nights (${s.map((x) => x.night).join(', ')}) ${s.length === 1 ? 'was' : 'were'}`;
  const how = [...new Set(s.flatMap((x) => x.reasons))];
  const shown = how.slice(0, 3).join(', ') + (how.length > 3 ? ` and ${how.length - 3} more` : '');
  return `Not the public web. ${which} crawled with the address guard's exemptions (${shown}): from the simulated web of adsnap demo / adsnap simweb or another private network. These figures describe that web and must not be cited as a measurement of the internet.`;
}
