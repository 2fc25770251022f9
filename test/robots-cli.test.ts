/**
 * `adsnap robots check` and `adsnap parse --kind robots.txt` through the real binary
 * (build first: npm test does; by hand `npx tsc -p tsconfig.build.json`).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt, RobotsMatcher } from '../src/parse/robots/index.js';
import { corpusPath, describeWithCorpus, hasCorpus, repoRoot } from './helpers/corpus.js';

const bin = path.join(repoRoot, 'bin/adsnap.js');
const samples = path.join(repoRoot, 'data-samples/robots');

function run(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

// Each case spawns node; a loaded 2-core CI runner needs more than vitest's 5 s default.
describe('adsnap robots check', { timeout: 30_000 }, () => {
  it('prints allowed/disallowed<TAB>URL per URL, absolute or path', async () => {
    const r = await run(['robots', 'check', path.join(samples, 'publisher.txt'), 'GPTBot', 'https://news.example/ads.txt', '/app-ads.txt', '/search?q=1']);
    expect(r).toEqual({ code: 0, stdout: 'allowed\thttps://news.example/ads.txt\ndisallowed\t/app-ads.txt\ndisallowed\t/search?q=1\n', stderr: '' });
  });

  it('exit 2 on usage errors, 1 when the file cannot be read', async () => {
    const [a, b, c, missing] = await Promise.all([
      run(['robots', 'check', 'x']),
      run(['robots', 'check', '--jsonl', 'x']),
      run(['robots', 'nope']),
      run(['robots', 'check', path.join(samples, 'no-such-file.txt'), 'a', '/']),
    ]);
    expect([a.code, b.code, c.code]).toEqual([2, 2, 2]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ENOENT');
  });

  it('--jsonl: one output line per input line, in order, reusing the compiled file; bad lines reported', async () => {
    const body = readFileSync(path.join(samples, 'publisher.txt'), 'utf8');
    const matcher = RobotsMatcher.compile(parseRobotsTxt(body));
    const agents = ['GPTBot', 'Googlebot', 'adsnap', 'AdsBot-Google', 'CCBot'];
    const urls = ['/', '/ads.txt', '/app-ads.txt', '/search', '/search/about', '/search/about/x', '/a?session=1', '/tmp/x', '/robots.txt', 'https://news.example/b'];
    const cases = agents.flatMap((useragent) => urls.flatMap((url) => [{ robotstxt: body, useragent, url }, { robotstxt_base64: Buffer.from(body).toString('base64'), useragent, url }]));
    const repeated = [...cases, ...cases, ...cases]; // 300 cases
    const input = repeated.map((c) => JSON.stringify(c)).join('\n') + '\nnot json\n{"robotstxt":"","url":"/"}\n';
    const r = await run(['robots', 'check', '--jsonl'], input);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(302);
    expect(lines.slice(0, 300)).toEqual(repeated.map((c) => JSON.stringify({ allowed: matcher.check(c.useragent, c.url).allowed })));
    expect(lines.slice(300).map((l) => Object.keys(JSON.parse(l) as object))).toEqual([['error'], ['error']]);
    expect(r.code).toBe(1);
  });

  it('--semantics google|rfc: the two readings answer where they differ (robots.txt, encoding, index.html)', async () => {
    const body = 'user-agent: *\ndisallow: /\nallow: /d/index.html\nallow: /%7Ea/\n';
    const urls = ['/robots.txt', '/d/', '/~a/x', '/%7Ea/x'];
    const ask = (sem: string[]) => run(['robots', 'check', ...sem, '-', 'bot', ...urls], body);
    const [def, rfc, google] = await Promise.all([ask([]), ask(['--semantics', 'rfc']), ask(['--semantics', 'google'])]);
    expect(rfc).toEqual(def);
    expect(rfc.stdout).toBe('allowed\t/robots.txt\ndisallowed\t/d/\nallowed\t/~a/x\nallowed\t/%7Ea/x\n');
    expect(google).toEqual({ code: 0, stdout: 'disallowed\t/robots.txt\nallowed\t/d/\ndisallowed\t/~a/x\nallowed\t/%7Ea/x\n', stderr: '' });
  });

  it('--semantics applies to verdicts and --jsonl; a bad value is a usage error', async () => {
    const body = 'user-agent: *\ndisallow: /\n';
    const input = JSON.stringify({ robotstxt: body, useragent: 'a', url: '/robots.txt' }) + '\n';
    const file = path.join(samples, 'publisher.txt');
    const [rfc, google, verdicts, bad, badVerdicts] = await Promise.all([
      run(['robots', 'check', '--jsonl'], input),
      run(['robots', 'check', '--jsonl', '--semantics', 'google'], input),
      run(['robots', 'verdicts', '--semantics', 'google', '--agents', 'x', '--paths', '/robots.txt,/ads.txt', '-'], body),
      run(['robots', 'check', '--semantics', 'bing', file, 'a', '/']),
      run(['robots', 'verdicts', '--semantics', '', file]),
    ]);
    expect([rfc.stdout, google.stdout]).toEqual(['{"allowed":true}\n', '{"allowed":false}\n']);
    expect(verdicts.stdout).toBe('user_agent\tpath\tallowed\tmatched_line\nx\t/robots.txt\tfalse\t2\nx\t/ads.txt\tfalse\t2\n');
    expect([bad.code, badVerdicts.code]).toEqual([2, 2]);
    expect(bad.stderr).toContain("--semantics must be 'rfc' or 'google'");
  });

  it('--help names both readings', async () => {
    const r = await run(['robots', '--help']);
    expect(r.stdout + r.stderr).toContain('--semantics google');
  });
});

describeWithCorpus('adsnap robots check --jsonl over the conformance suite (one process)', { timeout: 30_000 }, () => {
  it('--semantics google answers all 545 Google cases as the reference does', async () => {
    type Case = { robotstxt: string | null; robotstxt_base64: string; useragent: string; url: string; expected_allowed: boolean };
    const load = (f: string) => (hasCorpus ? (JSON.parse(readFileSync(corpusPath('conformance', f), 'utf8')) as { cases: Case[] }).cases : []);
    const cases = [...load('google-robotstxt-spec-test-cases.json'), ...load('google-robotstxt-robots_test-vectors.json')];
    const input = cases.map((c) => JSON.stringify({ robotstxt_base64: c.robotstxt_base64, useragent: c.useragent, url: c.url })).join('\n') + '\n';
    const r = await run(['robots', 'check', '--jsonl', '--semantics', 'google'], input);
    expect(r.code).toBe(0);
    const got = r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { allowed: boolean }).allowed);
    expect(got).toEqual(cases.map((c) => c.expected_allowed));
  });

  it('answers all 545 Google cases; exactly the 12 documented deviations differ', async () => {
    type Case = { robotstxt: string | null; robotstxt_base64: string; useragent: string; url: string; expected_allowed: boolean };
    const load = (f: string) => (hasCorpus ? (JSON.parse(readFileSync(corpusPath('conformance', f), 'utf8')) as { cases: Case[] }).cases : []);
    const cases = [...load('google-robotstxt-spec-test-cases.json'), ...load('google-robotstxt-robots_test-vectors.json')];
    const input = cases.map((c) => JSON.stringify(c.robotstxt === null ? { robotstxt_base64: c.robotstxt_base64, useragent: c.useragent, url: c.url } : { robotstxt: c.robotstxt, useragent: c.useragent, url: c.url })).join('\n') + '\n';
    const r = await run(['robots', 'check', '--jsonl'], input);
    expect(r.code).toBe(0);
    const got = r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { allowed: boolean }).allowed);
    expect(got).toHaveLength(545);
    expect(got.filter((a, i) => a !== cases[i]!.expected_allowed)).toHaveLength(12);
  });
});

describe('adsnap parse --kind robots.txt', { timeout: 30_000 }, () => {
  it.each(['publisher', 'latin1-cr', 'soft-404.html', 'empty'])('%s: NDJSON equals the golden file', async (name) => {
    const r = await run(['parse', '--kind', 'robots.txt', '--format', 'ndjson', path.join(samples, `${name}.txt`)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(path.join(samples, `${name}.expected.ndjson`), 'utf8'));
  });

  it('reads stdin and prints every event type: group, rule, sitemap, other, issue, summary', async () => {
    const r = await run(['parse', '--kind', 'robots.txt', '-'], 'allow: /x\nuser-agent: a\ndisallow: /y\nsitemap: https://h/s\ncrawl-delay: 1\n');
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(events.map((e) => e.type)).toEqual(['issue', 'group', 'rule', 'sitemap', 'other', 'summary']);
    expect(events[2]).toEqual({ type: 'rule', line_no: 3, user_agents: ['a'], directive: 'disallow', path: '/y' });
  });
});
