import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { AdsTxtParser, type AdsFileKind, type AdsTxtSummary } from '../src/parse/adstxt/index.js';
import { corpusPath, describeWithCorpus, hasCorpus } from './helpers/corpus.js';

interface Parsed {
  byLine: Map<number, string[]>; // what each line yielded: 'record' | 'variable' | issue code (errors)
  summary: AdsTxtSummary;
  all: unknown[];
}

function parse(bytes: Uint8Array, fileKind: AdsFileKind, chunkSize: number, canonicalFastPath = true): Parsed {
  const byLine = new Map<number, string[]>();
  const all: unknown[] = [];
  const add = (n: number | null, what: string) => {
    if (n === null) return;
    const xs = byLine.get(n) ?? [];
    xs.push(what);
    byLine.set(n, xs);
  };
  const p = new AdsTxtParser(
    {
      onRecord: (r) => (add(r.lineNo, 'record'), all.push(r)),
      onVariable: (v) => (add(v.lineNo, 'variable'), all.push(v)),
      onIssue: (i) => (i.severity === 'error' ? add(i.lineNo, i.code) : undefined, all.push(i)),
    },
    { fileKind, canonicalFastPath },
  );
  for (let i = 0; i < bytes.length; i += chunkSize) p.push(bytes.subarray(i, i + chunkSize));
  const summary = p.end();
  all.push(summary);
  return { byLine, summary, all };
}

/** Independent reading of the same bytes: which lines carry content (not blank, not comment-only). */
function contentLines(bytes: Uint8Array): { total: number; content: number[] } {
  const encoding = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : 'utf-8';
  const text = new TextDecoder(encoding).decode(bytes); // drops the BOM
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  const content: number[] = [];
  lines.forEach((l, i) => {
    const hash = l.indexOf('#');
    if ((hash >= 0 ? l.slice(0, hash) : l).trim() !== '') content.push(i + 1);
  });
  return { total: lines.length, content };
}

const files = hasCorpus
  ? [
      ...readdirSync(corpusPath('adstxt')).map((f) => ['adstxt', f] as const),
      ...readdirSync(corpusPath('app-ads')).map((f) => ['app-ads', f] as const),
      ...readdirSync(corpusPath('conformance/adstxt-parser-fixtures')).map((f) => ['conformance/adstxt-parser-fixtures', f] as const),
    ]
  : [];

describeWithCorpus('real ads.txt / app-ads.txt files (corpus adstxt/, app-ads/)', () => {
  it('every file parses without throwing, and every content line yields exactly one record, variable or error', () => {
    let records = 0;
    let checkedLines = 0;
    const problems: string[] = []; // collected, then asserted once: per-line expect() is slow
    for (const [dir, name] of files) {
      const bytes = readFileSync(corpusPath(dir, name));
      const kind: AdsFileKind = dir === 'app-ads' ? 'app-ads.txt' : 'ads.txt';
      const { byLine, summary } = parse(bytes, kind, 4096);
      const ref = contentLines(bytes);
      const label = `${dir}/${name}`;
      if (summary.lines !== ref.total) problems.push(`${label}: ${summary.lines} lines, expected ${ref.total}`);
      if (summary.bytes !== bytes.length) problems.push(`${label}: ${summary.bytes} bytes, expected ${bytes.length}`);
      if (summary.status === 'html') {
        if ([...byLine.values()].flat().join() !== 'HTML_BODY') problems.push(`${label}: html with other events`);
        continue;
      }
      for (const n of ref.content) {
        const what = byLine.get(n);
        if (what?.length !== 1) problems.push(`${label}:${n}: yielded ${JSON.stringify(what ?? [])}`);
      }
      if (byLine.size !== ref.content.length) problems.push(`${label}: events on ${byLine.size} lines, ${ref.content.length} content lines`);
      records += summary.records;
      checkedLines += ref.content.length;
    }
    expect(problems).toEqual([]);
    // Guard against a vacuous pass: the corpus holds tens of thousands of records.
    expect(records).toBeGreaterThan(50_000);
    expect(checkedLines).toBeGreaterThan(records);
  });

  it('chunk size and the fast path do not change any event', () => {
    for (const [dir, name] of files) {
      const bytes = readFileSync(corpusPath(dir, name));
      const kind: AdsFileKind = dir === 'app-ads' ? 'app-ads.txt' : 'ads.txt';
      // JSON text comparison: same check as toEqual here (plain data), far cheaper on 10k-event files.
      const whole = JSON.stringify(parse(bytes, kind, bytes.length || 1).all);
      expect(JSON.stringify(parse(bytes, kind, 997).all) === whole, `${name}: chunked`).toBe(true);
      expect(JSON.stringify(parse(bytes, kind, 65536, false).all) === whole, `${name}: general path`).toBe(true);
    }
  });

  it('known anomalies are read as the manifest describes them', () => {
    const utf16 = parse(readFileSync(corpusPath('app-ads/eduardofscruz-utf16le-bom.txt')), 'app-ads.txt', 4096);
    expect(utf16.all.some((e) => (e as { code?: string }).code === 'UTF16_ENCODING')).toBe(true);
    const slash = parse(readFileSync(corpusPath('adstxt/inkystellar-proxy-slash-comment.txt')), 'ads.txt', 4096);
    expect(slash.summary.status).toBe('empty');
    expect(slash.summary.errors).toBeGreaterThan(0);
    const loyal = parse(readFileSync(corpusPath('adstxt/loyal.app.txt')), 'ads.txt', 4096);
    expect(loyal.all.some((e) => (e as { code?: string }).code === 'DUPLICATE_OWNERDOMAIN')).toBe(true);
  });
});
