/**
 * What `adsnap parse` needs from each file kind (contract §1). `parse.ts` picks the kind,
 * streams the file's bytes in, and prints the events as NDJSON or a readable table.
 * Each kind lives in its own module beside this one: adstxt.ts, robots.ts, sellers.ts, buyers.ts.
 */
export type FileKind = 'ads.txt' | 'app-ads.txt' | 'robots.txt' | 'sellers.json' | 'buyers.json';

/** One output object: `type` first ('record', 'variable', 'issue', 'group', 'rule', 'seller', 'summary', …). */
export type ParseEvent = { type: string } & Record<string, unknown>;

export interface ParseKind {
  /** Consumes the body's bytes and yields events in file order; the last one is the summary. */
  events(body: AsyncIterable<Uint8Array>, kind: FileKind): AsyncIterable<ParseEvent>;
}
