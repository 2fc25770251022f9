/**
 * Every real robots.txt in corpus/robots (HTML pages, BOMs, UTF-16, non-UTF-8, CR-only, NUL
 * bytes, files over 1 MB): parsing never throws, respects the limits, gives the same result
 * however the bytes are chunked, and every file yields verdicts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseRobotsTxt, RobotsParser, ROBOTS_PARSE_LIMIT, rulesPolicy, verdicts } from '../src/parse/robots/index.js';
import { corpusPath, describeWithCorpus, hasCorpus } from './helpers/corpus.js';

const ASCII_PATTERN = /^[\x21-\x7e]*$/;

describeWithCorpus('corpus/robots', { timeout: 60_000 }, () => {
  const names = hasCorpus ? readdirSync(corpusPath('robots')).filter((f) => f.endsWith('.txt')).sort() : [];

  it('parses every file within the limits, with ASCII match patterns', () => {
    expect(names.length).toBeGreaterThan(5000);
    const status = { ok: 0, empty: 0, html: 0 };
    let truncated = 0;
    const problems: string[] = []; // one expect at the end: expect() per rule would dominate the run time
    for (const name of names) {
      const bytes = readFileSync(corpusPath('robots', name));
      const txt = parseRobotsTxt(bytes);
      status[txt.status]++;
      if (txt.truncated) truncated++;
      if (txt.bytes !== bytes.length) problems.push(`${name}: bytes ${txt.bytes}`);
      if (txt.truncated !== bytes.length > ROBOTS_PARSE_LIMIT) problems.push(`${name}: truncated ${txt.truncated}`);
      for (const g of txt.groups) for (const r of g.rules) if (!ASCII_PATTERN.test(r.pattern)) problems.push(`${name}:${r.lineNo}: pattern ${r.pattern}`);
      if (txt.issues.filter((i) => i.lineNo !== null).length > 200) problems.push(`${name}: too many issues`);
      if (verdicts(rulesPolicy(txt)).length !== 48) problems.push(`${name}: verdicts`);
    }
    expect(problems).toEqual([]);
    // The corpus README promises HTML bodies, empty files and files over 1 MB.
    expect(status.html).toBeGreaterThan(0);
    expect(status.empty).toBeGreaterThan(0);
    expect(truncated).toBeGreaterThan(0);
    expect(status.ok).toBeGreaterThan(names.length * 0.8);
  });

  it('gives the same result in 1,000-byte chunks as in one piece (every 10th file)', () => {
    for (const name of names.filter((_, i) => i % 10 === 0)) {
      const bytes = readFileSync(corpusPath('robots', name));
      const p = new RobotsParser();
      for (let i = 0; i < bytes.length; i += 1000) p.push(bytes.subarray(i, i + 1000));
      expect(p.end(), name).toEqual(parseRobotsTxt(bytes));
    }
  });
});
