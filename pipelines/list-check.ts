/**
 * Bad input found at the edge: a list with no accepted entry is refused before anything is
 * created (no lock, no staging folder, no empty partition folders), with the first malformed lines
 * and why. Reading stops at the first accepted entry, so a good list costs a line or two.
 */
import { readAppList } from '../src/sources/apps.js';
import { readDomainList } from '../src/sources/domain-list.js';
import { EmptyListError, type CrawlOptions } from './crawl-options.js';

/** How many malformed lines a message quotes (the manifest keeps more: `list.malformedSamples`). */
export const QUOTED_MALFORMED = 5;

interface ListSummary {
  lines: number;
  accepted: number;
  malformed: number;
  malformedSamples: { lineNo: number; text: string; reason: string }[];
}

/**
 * Throws EmptyListError when a list (its path as read: a file, or the copy of stdin) has no
 * accepted entry within `--limit`. `shown`: the names the user gave (`-` for stdin).
 */
export async function checkListsHaveEntries(o: CrawlOptions, read: { domains: string | null; apps: string | null }): Promise<void> {
  if (o.allowEmpty) return;
  if (read.domains) {
    const src = readDomainList(read.domains, { limit: o.limit, zipEntry: o.zipEntry });
    if (!(await anyOf(src.targets))) throw emptyList('domain', o.domains ?? read.domains, src.stats, o.limit);
  }
  if (read.apps) {
    const src = readAppList(read.apps, { limit: o.limit, zipEntry: o.zipEntry });
    if (!(await anyOf(src.apps))) throw emptyList('app', o.apps ?? read.apps, src.stats, o.limit);
  }
}

async function anyOf(items: AsyncIterable<unknown>): Promise<boolean> {
  for await (const _ of items) return true; // leaving the loop closes the reader
  return false;
}

function emptyList(kind: 'domain' | 'app', shown: string, s: ListSummary, limit: number | undefined): EmptyListError {
  const name = shown === '-' ? 'stdin' : shown;
  const what = limit === 0 ? 'no entry is accepted with --limit 0' : `the ${kind} list ${name} has no accepted entry (${s.lines} lines, ${s.malformed} malformed)`;
  return new EmptyListError(`${what}; nothing was created${malformedLines(s)}\n(--allow-empty commits an empty snapshot)`);
}

/** The first malformed lines, one a line: `  line N: reason: "text"`, and how many more. */
export function malformedLines(s: ListSummary, quoted = QUOTED_MALFORMED): string {
  if (s.malformed === 0) return '';
  const shown = s.malformedSamples.slice(0, quoted).map((m) => `\n  line ${m.lineNo}: ${m.reason}: ${JSON.stringify(m.text)}`);
  const more = s.malformed - shown.length;
  return `${shown.join('')}${more > 0 ? `\n  … and ${more} more malformed line${more > 1 ? 's' : ''}` : ''}`;
}
