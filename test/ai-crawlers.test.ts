import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPolicy, parseRobotsTxt, robotsPolicy, type RobotsTxt } from '../src/parse/robots/index.js';
import { agentAccess, type AgentAccess } from '../src/parse/robots/agent-access.js';
import { parseDictionary, usageSignals } from '../src/parse/robots/usage-signals.js';
import { AgentsCatalogueError, loadAgentsCatalogue, parseAgentsCatalogue } from '../src/resolve/agents-catalogue.js';
import { corpusPath, hasCorpus, repoRoot } from './helpers/corpus.js';

/** The agents catalogue, the per-agent answers and the usage preference lines (docs/reference/ai-crawlers.md). */

describe('the shipped agents catalogue', () => {
  it('is valid, dated, versioned, about a hundred agents, each with a source that has a URL', async () => {
    const c = await loadAgentsCatalogue();
    expect(c.file).toBeNull();
    expect(c.version).toMatch(/^\d{4}\.\d{2}\.\d{2}/);
    expect(c.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(c.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(c.agents.length).toBeGreaterThanOrEqual(90);
    const raw = JSON.parse(readFileSync(path.join(repoRoot, 'data', 'agents-catalogue.json'), 'utf8'));
    for (const a of c.agents) {
      expect(a.sources.length, a.token).toBeGreaterThan(0);
      for (const s of a.sources) expect(raw.sources[s].url, `${a.token}: ${s}`).toMatch(/^https:\/\//);
      expect(Object.keys(raw.purposes)).toContain(a.purpose);
    }
    const tokens = c.agents.map((a) => a.token);
    for (const t of ['AdsBot-Google', 'Mediapartners-Google', 'GPTBot', 'ClaudeBot', 'Google-Extended', 'CCBot', 'PerplexityBot', 'Applebot-Extended', 'Bytespider', 'meta-externalagent']) expect(tokens).toContain(t);
    expect(c.agents.filter((a) => a.purpose === 'ads').length).toBeGreaterThanOrEqual(10);
  });

  it('refuses a bad file with AGENTS_CATALOGUE_INVALID naming the entry', () => {
    const ok = { version: '1', date: '2026-11-25', sources: { s: { url: 'https://example.org/' } }, agents: [{ token: 'GPTBot', operator: 'OpenAI', purpose: 'training', sources: ['s'] }] };
    const bad = (patch: object, msg: RegExp) => {
      const text = Buffer.from(JSON.stringify({ ...ok, ...patch }));
      expect(() => parseAgentsCatalogue(text, 'x.json')).toThrow(msg);
    };
    expect(parseAgentsCatalogue(Buffer.from(JSON.stringify(ok)), 'x.json').agents).toHaveLength(1);
    expect(() => parseAgentsCatalogue(Buffer.from('{'), 'x.json')).toThrow(AgentsCatalogueError);
    expect(() => parseAgentsCatalogue(Buffer.from('[]'), 'x.json')).toThrow(/not a JSON object/);
    bad({ date: '2026-02-30' }, /"date"/);
    bad({ version: '' }, /"version"/);
    bad({ agents: [] }, /non-empty/);
    bad({ agents: [{ ...ok.agents[0], token: 'AI2Bot' }] }, /agents\[0\].*not a product token/);
    bad({ agents: [ok.agents[0], { ...ok.agents[0], token: 'gptbot' }] }, /agents\[1\].*also agents\[0\]/);
    bad({ agents: [{ ...ok.agents[0], sources: [] }] }, /at least one source/);
    bad({ agents: [{ ...ok.agents[0], sources: ['nope'] }] }, /"nope" is not in "sources"/);
    bad({ agents: [{ ...ok.agents[0], operator: ' ' }] }, /"operator"/);
    bad({ sources: { s: { url: 'ftp://x' } } }, /sources\.s/);
    try {
      parseAgentsCatalogue(Buffer.from('{'), 'x.json');
    } catch (err) {
      expect((err as AgentsCatalogueError).code).toBe('AGENTS_CATALOGUE_INVALID');
    }
  });
});

const AGENTS = ['GPTBot', 'ClaudeBot', 'CCBot', 'AdsBot-Google', 'Google-Extended'];

function access(body: string, agents = AGENTS): AgentAccess[] {
  const txt = parseRobotsTxt(body);
  return agentAccess(robotsPolicy({ kind: 'http', status: 200 }, txt), txt, agents);
}
const brief = (rows: AgentAccess[]) => rows.map((r) => `${r.userAgent}:${r.blocked}:${r.via}`);

describe('agentAccess: blocked fully, partly or not at all, and how', () => {
  it('own group vs * (a named agent does not fall back to *, RFC 9309 §2.2.1)', () => {
    const rows = access('User-agent: *\nDisallow: /private\n\nUser-agent: GPTBot\nUser-agent: ccbot\nDisallow: /\n\nUser-agent: ClaudeBot\nAllow: /\n');
    expect(brief(rows)).toEqual(['*:partial:global_group', 'GPTBot:full:own_group', 'ClaudeBot:none:own_group', 'CCBot:full:own_group']);
    expect(rows[1]!.groupLine).toBe(4);
  });

  it('full needs a catch-all disallow that no allow rule as long reopens', () => {
    expect(brief(access('User-agent: *\nDisallow: /\n'))).toEqual(['*:full:global_group']);
    expect(brief(access('User-agent: *\nDisallow: /*\n'))).toEqual(['*:full:global_group']);
    expect(brief(access('User-agent: *\nDisallow: *\n'))).toEqual(['*:full:global_group']);
    // Allow: / is as long as Disallow: / and wins the tie (§2.2.2): nothing is blocked by it.
    expect(brief(access('User-agent: *\nDisallow: /\nAllow: /public\n'))).toEqual(['*:partial:global_group']);
    expect(brief(access('User-agent: *\nDisallow: /*\nAllow: /\n'))).toEqual(['*:full:global_group']);
    expect(brief(access('User-agent: *\nDisallow: /$\n'))).toEqual(['*:partial:global_group']);
    expect(brief(access('User-agent: *\nDisallow:\n'))).toEqual(['*:none:global_group']);
    expect(brief(access('User-agent: *\nAllow: /\n'))).toEqual(['*:none:global_group']);
  });

  it('groups naming the same agent merge; no * group at all is no_group', () => {
    expect(brief(access('User-agent: GPTBot\nDisallow: /a\n\nUser-agent: gptbot\nDisallow: /\n'))).toEqual(['*:none:no_group', 'GPTBot:full:own_group']);
    expect(brief(access('Sitemap: https://x.test/s.xml\n'))).toEqual(['*:none:no_group']);
  });

  it('AdsBot-Google obeys * under RFC 9309 (Google’s own exception is not applied)', () => {
    expect(brief(access('User-agent: *\nDisallow: /\n', ['AdsBot-Google']))).toEqual(['*:full:global_group']);
  });

  it('unreachable (5xx, network) is full; absent (4xx) is none (RFC 9309 §2.3.1.3, §2.3.1.4)', () => {
    expect(brief(agentAccess(robotsPolicy({ kind: 'http', status: 503 }, null), null, AGENTS))).toEqual(['*:full:unreachable']);
    expect(brief(agentAccess(robotsPolicy({ kind: 'unreachable' }, null), null, AGENTS))).toEqual(['*:full:unreachable']);
    expect(brief(agentAccess(robotsPolicy({ kind: 'http', status: 404 }, null), null, AGENTS))).toEqual(['*:none:absent']);
    expect(brief(agentAccess(robotsPolicy({ kind: 'http', status: 403 }, null), null, AGENTS))).toEqual(['*:none:absent']);
  });

  it.skipIf(!hasCorpus)('the ai.robots.txt community blocklist in the corpus blocks its agents by name', () => {
    const body = readFileSync(corpusPath('robots', 'ai-robots-txt-project-blocklist.txt'), 'utf8');
    const rows = access(body);
    expect(brief(rows).filter((r) => r.startsWith('GPTBot') || r.startsWith('ClaudeBot'))).toEqual(['GPTBot:full:own_group', 'ClaudeBot:full:own_group']);
  });
});

describe('agentAccess follows the reading the verdicts use (robots-semantics.md)', () => {
  const both = (body: string | Uint8Array, agents = AGENTS) => {
    const txt = parseRobotsTxt(body);
    const at = (semantics: 'rfc' | 'google') => {
      const policy = robotsPolicy({ kind: 'http', status: 200 }, txt, { semantics });
      return { rows: brief(agentAccess(policy, txt, agents)), check: (ua: string, url: string) => checkPolicy(policy, ua, url).allowed };
    };
    return { rfc: at('rfc'), google: at('google') };
  };

  it('a value without a leading / reopens a catch-all in rfc only (divergence 5)', () => {
    const r = both('User-agent: *\nDisallow: /\nAllow: x\n');
    expect(r.rfc.rows).toEqual(['*:partial:global_group']);
    expect(r.google.rows).toEqual(['*:full:global_group']);
    // The levels agree with each reading's verdicts.
    expect([r.rfc.check('GPTBot', '/x'), r.google.check('GPTBot', '/x')]).toEqual([true, false]);
  });

  it('such a value alone restricts in rfc, and nothing in google', () => {
    const r = both('User-agent: GPTBot\nDisallow: fish/\n');
    expect(r.rfc.rows).toEqual(['*:none:no_group', 'GPTBot:partial:own_group']);
    expect(r.google.rows).toEqual(['*:none:no_group', 'GPTBot:none:own_group']);
    expect([r.rfc.check('GPTBot', '/fish/'), r.google.check('GPTBot', '/fish/')]).toEqual([false, true]);
  });

  it('a rule’s priority is its length as each reading spells it (divergence 3)', () => {
    // rfc reads `/%7E` as `/~` (2 octets), shorter than `/***` (4); google keeps its 4 octets and wins the tie.
    const r = both('User-agent: *\nDisallow: /***\nAllow: /%7E\n');
    expect(r.rfc.rows).toEqual(['*:full:global_group']);
    expect(r.google.rows).toEqual(['*:partial:global_group']);
    expect([r.rfc.check('GPTBot', '/%7E'), r.google.check('GPTBot', '/%7E')]).toEqual([false, true]);
  });

  it('a UTF-16 body has no groups in google (divergence 6)', () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('User-agent: *\nDisallow: /\n', 'utf16le')]);
    const r = both(body);
    expect(r.rfc.rows).toEqual(['*:full:global_group']);
    expect(r.google.rows).toEqual(['*:none:no_group']);
    expect([r.rfc.check('GPTBot', '/a'), r.google.check('GPTBot', '/a')]).toEqual([false, true]);
  });

  it('where the readings do not diverge, the rows are the same', () => {
    const body = 'User-agent: *\nDisallow: /private\n\nUser-agent: GPTBot\nUser-agent: ccbot\nDisallow: /\n\nUser-agent: ClaudeBot\nAllow: /\n';
    const r = both(body);
    expect(r.google.rows).toEqual(r.rfc.rows);
  });
});

describe('usage preferences: Content-Signal and Content-Usage', () => {
  const file = [
    'Content-Usage: train-ai=n', // 1: before any group
    'User-agent: *', // 2
    'Content-Signal: search=yes, ai-train=no', // 3
    'Content-Usage: train-ai=n, search=y;x=1', // 4
    'Allow: /', // 5
    '', // 6
    'User-agent: GPTBot', // 7
    'Content-Usage: /docs/ train-ai=y', // 8
    'Content-Signal: ai-input=maybe, bogus, future=yes', // 9
    'Content-Usage: train-ai=maybe', // 10
    'Content-Usage: Train-AI=n', // 11: not a dictionary (keys are lower case, RFC 9651)
    'Content-Usage: search=y, search=n', // 12
    'Content-Usage: /x', // 13: no preference
    'Disallow: /', // 14
  ].join('\n');
  let txt: RobotsTxt;

  it('rows with group, agents, path, key and value; issue codes for malformed values', () => {
    txt = parseRobotsTxt(file);
    const { signals, issues } = usageSignals(txt);
    expect(signals.map((s) => [s.lineNo, s.directive, s.groupNo, s.userAgents.join('|'), s.path, s.key, s.value])).toEqual([
      [1, 'content-usage', null, '', null, 'train-ai', 'n'],
      [3, 'content-signal', 1, '*', null, 'search', 'yes'],
      [3, 'content-signal', 1, '*', null, 'ai-train', 'no'],
      [4, 'content-usage', 1, '*', null, 'train-ai', 'n'],
      [4, 'content-usage', 1, '*', null, 'search', 'y'],
      [8, 'content-usage', 2, 'GPTBot', '/docs/', 'train-ai', 'y'],
      [9, 'content-signal', 2, 'GPTBot', null, 'ai-input', 'maybe'],
      [9, 'content-signal', 2, 'GPTBot', null, 'future', 'yes'],
      [10, 'content-usage', 2, 'GPTBot', null, 'train-ai', 'maybe'],
      [12, 'content-usage', 2, 'GPTBot', null, 'search', 'n'],
    ]);
    expect(issues.map((i) => `${i.lineNo}:${i.code}`)).toEqual([
      '1:USAGE_OUTSIDE_GROUP',
      '9:CONTENT_SIGNAL_INVALID_VALUE',
      '9:CONTENT_SIGNAL_INVALID',
      '9:CONTENT_SIGNAL_UNKNOWN_KEY',
      '10:CONTENT_USAGE_INVALID_VALUE',
      '11:CONTENT_USAGE_INVALID',
      '12:CONTENT_USAGE_DUPLICATE_KEY',
      '13:CONTENT_USAGE_EMPTY',
    ]);
  });

  it('the parser still counts these lines as records, not directives, with no UNKNOWN_DIRECTIVE', () => {
    txt = parseRobotsTxt(file);
    expect(txt.lines).toBe(14);
    expect(txt.directiveLines).toBe(4); // two user-agent lines, allow, disallow
    expect(txt.unknownLines).toBe(9);
    expect(txt.issues.filter((i) => i.code === 'UNKNOWN_DIRECTIVE')).toEqual([]);
    // The groups are unchanged by the records inside them (RFC 9309 §2.2.4).
    expect(txt.groups.map((g) => [g.userAgents, g.rules.map((r) => r.path)])).toEqual([[['*'], ['/']], [['GPTBot'], ['/']]]);
  });

  it('the Structured Fields dictionary subset: bare keys, parameters, strings; syntax errors fail the whole line', () => {
    expect(parseDictionary('a=y, b, c=n;q=1, d="x,y"')).toEqual([['a', 'y'], ['b', '?1'], ['c', 'n'], ['d', '"x,y"']]);
    expect(parseDictionary('a=y,')).toBeNull();
    expect(parseDictionary('a=y b=n')).toBeNull();
    expect(parseDictionary('A=y')).toBeNull();
    expect(parseDictionary('a==y')).toBeNull();
  });
});
