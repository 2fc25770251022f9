/**
 * The two readings of robots.txt (docs/reference/robots-semantics.md):
 * - each divergence between `rfc` and `google`, case by case;
 * - a differential test over corpus/conformance: the robotstxt-spec-test .textproto files read
 *   as they are (google answers every expectation; every rfc miss is one of the divergences),
 *   and the parser-fixture file with faulty directives (both readings agree);
 * - the real files of corpus/robots with the benchmark URL sets: wherever the readings disagree,
 *   a listed divergence explains it;
 * - the crawl's --robots-semantics: verdict rows, manifest, run identity, and reparse.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../pipelines/crawl.js';
import { reparse } from '../pipelines/reparse.js';
import { openSnapshotDb } from '../src/sql/snapshot-db.js';
import { normaliseUrlPath, parseRobotsTxt, pathFromUrl, RobotsMatcher, urlPathOctets, type RobotsSemantics, type RobotsTxt } from '../src/parse/robots/index.js';
import { corpusPath, describeWithCorpus, hasCorpus } from './helpers/corpus.js';
import { startLocalWeb, type LocalWeb } from './helpers/local-server.js';
import { runCli } from './helpers/run-cli.js';
import { parseTextproto, type TextprotoMessage } from './helpers/textproto.js';
import { createTestTls } from './helpers/tls.js';
import { useTempDirs } from './helpers/tmp.js';

const both = (body: string | Uint8Array) => {
  const txt = parseRobotsTxt(body);
  return { rfc: RobotsMatcher.compile(txt), google: RobotsMatcher.compile(txt, { semantics: 'google' }) };
};
const ask = (body: string | Uint8Array, agent: string, url: string) => {
  const m = both(body);
  return { rfc: m.rfc.check(agent, url).allowed, google: m.google.check(agent, url).allowed };
};

describe('the divergences, one by one', () => {
  it('rfc is the default and an unknown semantics is refused', () => {
    const txt = parseRobotsTxt('user-agent: *\ndisallow: /\n');
    expect(RobotsMatcher.compile(txt).semantics).toBe('rfc');
    expect(() => RobotsMatcher.compile(txt, { semantics: 'bing' as RobotsSemantics })).toThrow(/semantics must be 'rfc' or 'google'/);
  });

  it('/robots.txt: implicitly allowed in rfc (RFC 9309 §2.2.2), a path like any other in google', () => {
    expect(ask('user-agent: *\ndisallow: /\n', 'bot', 'https://h/robots.txt')).toEqual({ rfc: true, google: false });
    expect(ask('user-agent: *\ndisallow: /robots\n', 'bot', '/robots.txt?x')).toEqual({ rfc: false, google: false });
  });

  it('the URL: normalised in rfc, compared as given in google (RFC 9309 §2.2.2)', () => {
    const body = 'user-agent: *\ndisallow: /a%3c\ndisallow: /~b\ndisallow: /ツ\ndisallow: /%7Ec\n';
    expect(ask(body, 'bot', '/a%3C')).toEqual({ rfc: false, google: false }); // the pattern's escapes are upper-cased in both
    expect(ask(body, 'bot', '/a%3c')).toEqual({ rfc: false, google: true }); // the URL's only in rfc
    expect(ask(body, 'bot', '/%7Eb')).toEqual({ rfc: false, google: true }); // an unreserved octet decoded (Figure 4)
    expect(ask(body, 'bot', '/~c')).toEqual({ rfc: false, google: true });
    expect(ask(body, 'bot', '/ツ')).toEqual({ rfc: false, google: true }); // the URL's non-ASCII is percent-encoded in rfc only
    expect(ask(body, 'bot', '/%E3%83%84')).toEqual({ rfc: false, google: false });
  });

  it('`*` and `$` in the URL: escaped in rfc (§2.2.3), literal octets in google', () => {
    const body = 'user-agent: *\ndisallow: /a$b\ndisallow: /x%2A\n';
    expect(ask(body, 'bot', '/a$b')).toEqual({ rfc: false, google: false });
    expect(ask(body, 'bot', '/x*')).toEqual({ rfc: false, google: true });
  });

  it('Allow …/index.htm*: google also allows the directory itself (priority of `…/$`)', () => {
    const body = 'user-agent: *\ndisallow: /\nallow: /d/index.html\nallow: /e/index.htm\nallow: /f/index.php\n';
    expect(ask(body, 'bot', '/d/')).toEqual({ rfc: false, google: true });
    expect(ask(body, 'bot', '/e/')).toEqual({ rfc: false, google: true });
    expect(ask(body, 'bot', '/f/')).toEqual({ rfc: false, google: false });
    expect(ask(body, 'bot', '/d/x')).toEqual({ rfc: false, google: false }); // `/d/$` is exact
    // The directory stands at the length of `/d/$` (4): it beats `/d/` (3) and loses to `/d/**` (5).
    expect(ask('user-agent: *\nallow: /d/index.html\ndisallow: /d/\n', 'bot', '/d/')).toEqual({ rfc: false, google: true });
    expect(ask('user-agent: *\nallow: /d/index.html\ndisallow: /d/**\n', 'bot', '/d/')).toEqual({ rfc: false, google: false });
  });

  it('a value without a leading /: rfc reads `/fish/` (Google\'s written spec); google\'s matcher matches nothing', () => {
    expect(ask('user-agent: *\ndisallow: fish/\n', 'bot', '/fish/')).toEqual({ rfc: false, google: true });
    expect(ask('user-agent: *\ndisallow: *fish\n', 'bot', '/fish/')).toEqual({ rfc: false, google: false });
  });

  it('priority: the escaped pattern\'s length in google, the normalised one in rfc', () => {
    // `/a|||` is `/a%7C%7C%7C` (11 octets) in rfc, 5 in google: against `allow: /*xyzw` (6) the two differ.
    const body = 'user-agent: *\ndisallow: /a|||\nallow: /*xyzw\n';
    expect(ask(body, 'bot', '/a|||xyzw')).toEqual({ rfc: false, google: true });
  });

  it('a UTF-16 body: decoded in rfc; no rule in google (its octets have NULs)', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('User-agent: *\nDisallow: /\n', 'utf16le')]);
    expect(ask(utf16, 'bot', '/x')).toEqual({ rfc: false, google: true });
  });

  it('the caller\'s user agent: case folded in ASCII only in google; an empty agent', () => {
    // U+212A KELVIN SIGN lower-cases to `k` in JavaScript, not in the reference's ASCII folding.
    expect(ask('user-agent: kbot\ndisallow: /\n', '\u212Abot', '/x')).toEqual({ rfc: false, google: true });
    // An empty caller string equals the empty token of `user-agent: 1bot` in the reference.
    expect(ask('user-agent: 1bot\ndisallow: /\n\nuser-agent: *\nallow: /\n', '', '/x')).toEqual({ rfc: true, google: false });
  });

  it('a NUL in the URL ends the path in google (the reference holds it as a C string)', () => {
    expect(ask('user-agent: *\ndisallow: /a$\n', 'bot', '/a\0b')).toEqual({ rfc: true, google: false });
  });

  it('everything else is one engine: groups, precedence, wildcards, typos agree', () => {
    const body = 'User-agent: FooBot\nUser-agent: BarBot\nDisallow: /private\nAllow: /private/ok$\nDisalow: /typo\n\nUser-agent: *\nDisallow: /*.pdf$\nAllow: /\n';
    for (const agent of ['FooBot', 'barbot', 'other', 'FooBot/1.0'])
      for (const url of ['/', '/private', '/private/ok', '/private/ok2', '/typo', '/a/b.pdf', '/a/b.pdf?x', 'https://h/x?y#z']) {
        const r = ask(body, agent, url);
        expect([agent, url, r.google]).toEqual([agent, url, r.rfc]);
      }
  });
});

/** What explains a disagreement between the readings (the list of docs/reference/robots-semantics.md); null when nothing does. */
function divergence(txt: RobotsTxt, url: string, lines: (number | null)[]): string | null {
  const p = pathFromUrl(url);
  if (p === '/robots.txt') return 'robots.txt';
  if (normaliseUrlPath(p) !== urlPathOctets(p)) return 'url-as-given';
  if (txt.utf16) return 'utf-16';
  const rules = lines.map((l) => txt.groups.flatMap((g) => g.rules).find((r) => r.lineNo === l));
  if (rules.some((r) => r?.directive === 'allow' && /\/index\.htm[^/]*$/.test(r.octets))) return 'index.htm';
  if (rules.some((r) => r && r.octets.length > 0 && r.octets[0] !== '/' && r.octets[0] !== '*')) return 'leading-slash';
  if (rules.some((r) => r && r.pattern !== r.octets)) return 'pattern-escaping';
  return null;
}

function verdicts(body: Uint8Array, agent: string, url: string) {
  const txt = parseRobotsTxt(body);
  const rfc = RobotsMatcher.compile(txt).check(agent, url);
  const google = RobotsMatcher.compile(txt, { semantics: 'google' }).check(agent, url);
  return { txt, rfc, google };
}

describeWithCorpus('differential: corpus/conformance', () => {
  const dir = corpusPath('conformance', 'robotstxt-spec-test');
  const files = hasCorpus ? ['correctness', 'stress'].flatMap((d) => readdirSync(path.join(dir, d)).filter((f) => f.endsWith('.textproto')).map((f) => path.join(d, f))) : [];
  const cases = files.flatMap((f) => {
    const spec = parseTextproto(readFileSync(path.join(dir, f), 'utf8'));
    return (spec.tests ?? []).flatMap((t, ti) => {
      const test = t as TextprotoMessage;
      const body = Buffer.from(test.robotstxt![0] as string, 'latin1');
      return (test.test_expectations ?? []).map((e, ei) => {
        const x = e as TextprotoMessage;
        const octets = x.testurl![0] as string;
        // The test URLs are UTF-8 octets in the file; the matcher takes a JS string.
        return { id: `${f} tests[${ti}][${ei}]`, body, url: Buffer.from(octets, 'latin1').toString('utf8'), agent: x.useragent![0] as string, allowed: x.expected_outcome![0] === 'ALLOWED', type: x.test_type?.[0] };
      });
    });
  });

  it('reads 41 files and 400 expectations', () => {
    expect(files).toHaveLength(41);
    expect(cases).toHaveLength(400);
  });

  it('google answers all 400; every rfc miss is a listed divergence (8 of them)', () => {
    const misses: string[] = [];
    for (const c of cases) {
      const { txt, rfc, google } = verdicts(c.body, c.agent, c.url);
      expect([c.id, google.allowed]).toEqual([c.id, c.allowed]);
      if (rfc.allowed === c.allowed) continue;
      const why = divergence(txt, c.url, [rfc.matchedLine, google.matchedLine]);
      expect([c.id, why]).not.toEqual([c.id, null]);
      misses.push(`${why}`);
    }
    expect(misses.sort()).toEqual(['index.htm', 'pattern-escaping', 'robots.txt', 'robots.txt', 'robots.txt', 'robots.txt', 'url-as-given', 'url-as-given']);
  });

  it('robotstxt-parser-fixtures: faulty directives read alike in both readings, as the reference reads them', () => {
    const body = readFileSync(corpusPath('conformance', 'robotstxt-parser-fixtures', 't1gor-with-faulty-directives.txt'));
    const txt = parseRobotsTxt(body);
    // `Disallow /admin/` (no colon, two words) is a rule; `disaLLow`, `diSallow` are; `dis@llow` is
    // not a key the reference knows; `#` starts a comment anywhere, so `User#agent: google4` is the
    // line `User`, and google4's block has no group.
    expect(txt.groups.map((g) => [g.userAgents, g.rules.map((r) => r.lineNo)])).toEqual([[['google1'], [2, 3, 4, 5]], [['google2'], [10, 11, 12]], [['google3'], [17, 18]]]);
    const m = both(body);
    // A user-agent value counts up to its first character outside [A-Za-z_-]: all three groups name
    // `google` and merge; the caller `google1` is no product token any group names.
    const expected: Record<string, Record<string, boolean>> = {
      google: { '/bin/x': false, '/search/x': false, '/admin/x': false, '/other': true },
      google1: { '/bin/x': true, '/search/x': true, '/admin/x': true, '/other': true },
    };
    for (const [agent, urls] of Object.entries(expected)) {
      for (const [url, allowed] of Object.entries(urls)) {
        expect([agent, url, m.rfc.check(agent, url).allowed, m.google.check(agent, url).allowed]).toEqual([agent, url, allowed, allowed]);
      }
    }
  });
});

describeWithCorpus('differential: real files of corpus/robots with the benchmark URLs', () => {
  it('wherever rfc and google disagree, a listed divergence explains it', () => {
    const byDomain = new Map<string, string[]>();
    for (const line of readFileSync(corpusPath('lists', 'robotstxt-benchmark-urls.tsv'), 'utf8').split('\n').slice(1)) {
      const tab = line.indexOf('\t');
      if (tab > 0) byDomain.set(line.slice(0, tab), [...(byDomain.get(line.slice(0, tab)) ?? []), line.slice(tab + 1)]);
    }
    let sites = 0;
    let checks = 0;
    const reasons: Record<string, number> = {};
    for (const [domain, urls] of byDomain) {
      let body: Buffer;
      try {
        body = readFileSync(corpusPath('robots', `${domain}.txt`));
      } catch {
        continue;
      }
      sites++;
      const txt = parseRobotsTxt(body);
      const m = { rfc: RobotsMatcher.compile(txt), google: RobotsMatcher.compile(txt, { semantics: 'google' }) };
      for (const agent of ['Googlebot', 'GPTBot', 'adsnap']) {
        for (const url of [...urls, '/robots.txt']) {
          checks++;
          const a = m.rfc.check(agent, url);
          const b = m.google.check(agent, url);
          if (a.allowed === b.allowed) continue;
          const why = divergence(txt, url, [a.matchedLine, b.matchedLine]);
          expect([domain, agent, url, why]).not.toEqual([domain, agent, url, null]);
          reasons[why!] = (reasons[why!] ?? 0) + 1;
        }
      }
    }
    expect(sites).toBeGreaterThan(1000);
    expect(checks).toBeGreaterThan(300_000);
    // Some real files disallow their own /robots.txt: the first divergence must show up.
    expect(reasons['robots.txt']).toBeGreaterThan(0);
  });
});

describe('crawl --robots-semantics', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs('robots-semantics');
  // `/` is disallowed in rfc and allowed in google (Allow /index.html stands for `/`).
  const BODY = 'User-agent: *\nDisallow: /\nAllow: /index.html\n';
  // robots_agent_access follows the reading: `Allow: x` reopens `/x` in rfc only, so `*` is
  // partial in rfc and full in google (robots-semantics.md, divergence 5).
  const AGENTS_BODY = 'User-agent: *\nDisallow: /\nAllow: x\n';
  const agentRows = (db: Awaited<ReturnType<typeof openSnapshotDb>>) =>
    db.rows(`SELECT blocked, via FROM robots_agent_access WHERE host = 'agents.test' AND user_agent = '*'`);
  let web: LocalWeb;
  let dir: string;
  let tls: Awaited<ReturnType<typeof createTestTls>>;

  beforeAll(async () => {
    tls = await createTestTls();
    web = await startLocalWeb(tls);
    for (const scheme of ['https', 'http']) {
      web.route(`${scheme}://site.test/robots.txt`, (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(BODY));
      web.route(`${scheme}://agents.test/robots.txt`, (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(AGENTS_BODY));
    }
    dir = tempDir();
    writeFileSync(path.join(dir, 'domains.txt'), 'site.test\nagents.test\n');
  });
  afterAll(async () => {
    await web?.close();
  });

  const run = async (out: string, robotsSemantics?: RobotsSemantics) =>
    crawl({ domains: path.join(dir, 'domains.txt'), outDir: path.join(dir, out), snapshotDate: '2026-11-25', checkpointSeconds: 0, sellers: false, ...(robotsSemantics ? { robotsSemantics } : {}), fetch: { connectTo: web.connectTo, caCerts: [tls.caPem], retries: 0 } });

  it('verdict rows name the reading and agent access follows it; the manifest records it; the run id differs only for google', async () => {
    const [rfc, dflt, google] = [await run('rfc', 'rfc'), await run('default'), await run('google', 'google')];
    expect(rfc.runId).toBe(dflt.runId);
    expect(google.runId).not.toBe(rfc.runId);
    for (const [name, r, sem, rootAllowed] of [['rfc', rfc, 'rfc', false], ['google', google, 'google', true]] as const) {
      const db = await openSnapshotDb(path.join(dir, name));
      try {
        const rows = await db.rows(`SELECT DISTINCT semantics, allowed FROM robots_verdicts WHERE host = 'site.test' AND path = '/'`);
        expect(rows).toEqual([{ semantics: sem, allowed: rootAllowed }]);
        expect(await agentRows(db)).toEqual([{ blocked: sem === 'rfc' ? 'partial' : 'full', via: 'global_group' }]);
      } finally {
        db.close();
      }
      const manifest = JSON.parse(readFileSync(r.manifestPath, 'utf8')) as { options: { robots_semantics: string } };
      expect(manifest.options.robots_semantics).toBe(sem);
    }
  });

  it('reparse recomputes the verdicts and the agent access in the reading the night recorded', async () => {
    const r = await reparse({ source: path.join(dir, 'google'), outDir: path.join(dir, 'reparsed') });
    expect(r.reparsed).toBeGreaterThan(0);
    const db = await openSnapshotDb(path.join(dir, 'reparsed'));
    try {
      expect(await db.rows(`SELECT DISTINCT semantics, allowed FROM robots_verdicts WHERE host = 'site.test' AND path = '/'`)).toEqual([{ semantics: 'google', allowed: true }]);
      expect(await agentRows(db)).toEqual([{ blocked: 'full', via: 'global_group' }]);
    } finally {
      db.close();
    }
  });

  it('the CLI checks the value at the edge and documents it in --help', async () => {
    const bad = await runCli(['crawl', '--domains', path.join(dir, 'domains.txt'), '--out', path.join(dir, 'x'), '--robots-semantics', 'bing']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--robots-semantics must be 'rfc' or 'google'");
    const help = await runCli(['crawl', '--help']);
    expect(help.stdout + help.stderr).toContain('--robots-semantics R');
    await expect(crawl({ domains: 'x', outDir: path.join(dir, 'y'), robotsSemantics: 'bing' as RobotsSemantics })).rejects.toThrow(/robotsSemantics must be 'rfc' or 'google'/);
  });
});
