import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { adsTxtIssueCodes } from '../src/parse/adstxt/index.js';
import { repoRoot } from './helpers/corpus.js';

// The reference page generated from adsTxtIssueCodes (scripts/gen-reference.ts), section "ads.txt / app-ads.txt".
const referenceSection = () => {
  const page = readFileSync(path.join(repoRoot, 'docs', 'reference', 'parse-issues.md'), 'utf8');
  const start = page.indexOf('## ads.txt / app-ads.txt');
  const end = page.indexOf('## sellers.json');
  expect(start).toBeGreaterThanOrEqual(0);
  return page.slice(start, end);
};

describe('ads.txt issue codes', () => {
  it('are unique, upper snake case, each with a severity, a meaning and a spec section', () => {
    const codes = adsTxtIssueCodes.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of adsTxtIssueCodes) {
      expect(c.code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(['error', 'warning', 'info']).toContain(c.severity);
      expect(c.meaning.length).toBeGreaterThan(10);
      expect(c.spec).toMatch(/^(ads\.txt 1\.1 §|app-ads\.txt 1\.0 )/);
    }
  });

  it('the reference table (docs/reference/parse-issues.md) lists every code with its severity, and no other code', () => {
    const section = referenceSection();
    const rows = [...section.matchAll(/^\| `([A-Z0-9_]+)` \| (error|warning|info) \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(adsTxtIssueCodes.map((c) => [c.code, c.severity]));
  });

  it('every code the parser sources mention is in the table', () => {
    const dir = path.join(repoRoot, 'src', 'parse', 'adstxt');
    const known = new Set<string>(adsTxtIssueCodes.map((c) => c.code));
    const used = new Set<string>();
    for (const f of readdirSync(dir).filter((f) => f !== 'issue-codes.ts')) {
      for (const m of readFileSync(path.join(dir, f), 'utf8').matchAll(/(?:issue|lineIssue)\('([A-Z0-9_]+)'/g)) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(15);
    expect([...used].filter((c) => !known.has(c))).toEqual([]);
  });
});
