import { Rng } from '../src/simweb/prng.js';
import { describe, expect, it } from 'vitest';
import { AdsTxtParser, parseAdsTxt } from '../src/parse/adstxt/index.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** A deterministic PRNG (the simulated web's) so failures reproduce. */
const prng = (seed: number) => {
  const rng = new Rng(seed);
  return () => rng.next();
};

describe('hostile input: no crash, bounded memory', () => {
  it('random bytes in random chunks: the same events and summary as one push, every line counted', () => {
    const rnd = prng(1);
    for (let round = 0; round < 5; round++) {
      const bytes = new Uint8Array(256 * 1024);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rnd() * 256);
      if (round === 1) bytes.set([0xff, 0xfe]); // UTF-16 garbage
      const streamed = { records: [] as unknown[], variables: [] as unknown[], issues: [] as unknown[] };
      const p = new AdsTxtParser(
        { onRecord: (r) => streamed.records.push(r), onVariable: (v) => streamed.variables.push(v), onIssue: (i) => streamed.issues.push(i) },
        { fileKind: 'ads.txt' },
      );
      for (let i = 0; i < bytes.length; ) {
        const n = 1 + Math.floor(rnd() * 5000);
        p.push(bytes.subarray(i, i + n));
        i += n;
      }
      const s = p.end();
      // Chunk boundaries (inside a CRLF, a UTF-8 sequence, a line) change nothing.
      const whole = parseAdsTxt(bytes, { fileKind: 'ads.txt' });
      expect(s, `round ${round}`).toEqual(whole.summary);
      expect(streamed, `round ${round}`).toEqual({ records: whole.records, variables: whole.variables, issues: whole.issues });
      expect(s.bytes).toBe(bytes.length);
      if (round !== 1) {
        // UTF-8 (invalid sequences replaced): CR, LF and CRLF each end one line, counted on the raw bytes.
        const text = Buffer.from(bytes).toString('latin1');
        const ends = text.match(/\r\n|\r|\n/g)?.length ?? 0;
        expect(s.lines, `round ${round}`).toBe(ends + (/[\r\n]$/.test(text) ? 0 : 1));
      }
      const lineNos = [...whole.records, ...whole.issues].map((e) => (e as { lineNo: number | null }).lineNo).filter((n): n is number => n !== null);
      expect(lineNos.every((n) => n >= 1 && n <= s.lines)).toBe(true);
      expect(whole.issues.length).toBeGreaterThan(0);
    }
  });

  it('a 2 MiB line without a line end is cut and reported once (LINE_TOO_LONG), never held whole', () => {
    const r = parseAdsTxt(new Uint8Array(2 * 1024 * 1024).fill(0x61), { fileKind: 'ads.txt' });
    expect(r.summary).toMatchObject({ status: 'empty', lines: 1, bytes: 2 * 1024 * 1024 });
    expect(r.issues.map((i) => i.code)).toEqual(['LINE_TOO_LONG', 'EMPTY_FILE']);
    expect(r.issues[0]!.lineText).toHaveLength(256);
  });

  it('a 2 MiB comment after a record does not lose the record', () => {
    const body = 'a.com, 1, DIRECT # ' + 'x'.repeat(2 * 1024 * 1024) + '\nb.com, 2, DIRECT\n';
    const r = parseAdsTxt(body, { fileKind: 'ads.txt' });
    expect(r.records.map((x) => x.adSystemDomain)).toEqual(['a.com', 'b.com']);
    expect(r.issues).toEqual([]);
  });

  it('NUL bytes are data: a NUL in field 1 is an invalid domain, elsewhere it is kept', () => {
    const r = parseAdsTxt(enc('a.com\0, 1, DIRECT\nb.com, 1\0, DIRECT\n\0\0\0\n'), { fileKind: 'ads.txt' });
    expect(r.records.map((x) => x.sellerAccountId)).toEqual(['1\0']);
    expect(r.issues.map((i) => [i.lineNo, i.code])).toEqual([
      [1, 'INVALID_DOMAIN'],
      [3, 'TOO_FEW_FIELDS'],
    ]);
  });

  it('a flood of referrals is capped in the summary (TOO_MANY_REFERRALS, once)', () => {
    const body = Array.from({ length: 50 }, (_, i) => `inventorypartnerdomain=p${i}.example\nsubdomain=s${i}.example.com`).join('\n');
    const r = parseAdsTxt(body, { fileKind: 'ads.txt', maxReferrals: 10 });
    expect(r.summary.inventoryPartnerDomains).toHaveLength(10);
    expect(r.summary.subdomains).toHaveLength(10);
    expect(r.variables).toHaveLength(100);
    expect(r.issues.filter((i) => i.code === 'TOO_MANY_REFERRALS')).toHaveLength(1);
  });

  it('500k lines stream through with memory independent of the line count', () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const lines = ['google.com, pub-1234567890, DIRECT, f08c47fec0942fa0', 'AppNexus.com, 12 34, reseller # c', 'bad line', 'contact=x@y.z', '', 'x.com, 1, OTHER; ext'];
    const block = enc(Array.from({ length: 1000 }, (_, i) => lines[i % lines.length]).join('\n') + '\n');
    let records = 0;
    let issues = 0;
    const p = new AdsTxtParser({ onRecord: () => records++, onIssue: () => issues++ }, { fileKind: 'ads.txt' });
    gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 500; i++) p.push(block);
    gc?.();
    const grown = process.memoryUsage().heapUsed - before;
    const s = p.end();
    expect(s.lines).toBe(500_000);
    expect(records).toBe(500 * 500); // 3 of every 6 lines are records
    expect(issues).toBeGreaterThan(0);
    // Keeping the 250k records alone would grow the heap by ~55 MB (measured); the parser keeps
    // counters and a bounded lookahead only (~1 MB measured without a forced GC).
    expect(grown).toBeLessThan(24 * 1024 * 1024);
  });
});
