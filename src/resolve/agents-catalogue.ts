/**
 * The catalogue of AI and advertising crawlers whose robots.txt treatment each night records
 * (`robots_agent_access`, `agents_catalogue`; docs/reference/ai-crawlers.md). adsnap ships one,
 * dated and versioned, in `data/agents-catalogue.json`, every entry with its sources;
 * `adsnap crawl --agents-catalogue FILE` replaces it for a run. The file is checked whole before
 * the crawl starts: a bad file is a clear error (AGENTS_CATALOGUE_INVALID), never half a list.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isValidProductToken } from '../parse/robots/user-agent.js';
import { packageRoot } from '../util/package-root.js';
import { isCalendarDate } from '../util/calendar-date.js';

export interface CatalogueAgent {
  /** RFC 9309 §2.2.1 product token (letters, `_`, `-`), unique case-insensitively. */
  token: string;
  operator: string;
  /** `training`, `search`, `assistant`, `agent`, `data`, `ads` in the shipped file; any lower-case word. */
  purpose: string;
  /** Ids of the catalogue's `sources` that back the entry (at least one). */
  sources: string[];
  /**
   * False for a token that only carries a preference and fetches nothing (Google-Extended,
   * Applebot-Extended); null when the entry does not say (a crawler, by default).
   */
  fetchesPages: boolean | null;
  /** What a disallow of it controls, as its operator documents it (AGENT_CONTROLS); null when not documented. */
  controls: string[] | null;
  /** The source id backing `fetchesPages` and `controls`; null when neither is given. */
  controlsSource: string | null;
}

/** What a disallow may control (docs/reference/ai-crawlers.md#what-each-agent-is). */
export const AGENT_CONTROLS: readonly string[] = ['training', 'grounding', 'search_answers', 'user_fetches'];

export interface AgentsCatalogue {
  version: string;
  /** YYYY-MM-DD: when the catalogue was last reviewed. */
  date: string;
  /** SHA-256 of the file's bytes (hex). */
  sha256: string;
  /** The file read; null for the shipped one. */
  file: string | null;
  agents: readonly CatalogueAgent[];
  /** Source id → URL. */
  sourceUrls: Readonly<Record<string, string>>;
}

/** Upper bound on entries: each one adds rows per site only where a robots.txt names it, but is checked on every host. */
export const MAX_CATALOGUE_AGENTS = 2000;

export class AgentsCatalogueError extends TypeError {
  readonly code = 'AGENTS_CATALOGUE_INVALID';
}

export function shippedAgentsCatalogueFile(): string {
  return path.join(packageRoot(), 'data', 'agents-catalogue.json');
}

/** Reads and checks a catalogue file; the shipped one when `file` is undefined. */
export async function loadAgentsCatalogue(file?: string): Promise<AgentsCatalogue> {
  const where = file ?? shippedAgentsCatalogueFile();
  let bytes: Buffer;
  try {
    bytes = await readFile(where);
  } catch (err) {
    throw new AgentsCatalogueError(`${where}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseAgentsCatalogue(bytes, where, file ?? null);
}

/** Checks a catalogue's bytes; throws AgentsCatalogueError naming `where` and the entry. */
export function parseAgentsCatalogue(bytes: Uint8Array, where: string, file: string | null = where): AgentsCatalogue {
  const fail = (msg: string): never => {
    throw new AgentsCatalogueError(`${where}: ${msg}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    return fail(`not JSON (${(err as Error).message})`);
  }
  if (!isObject(doc)) return fail('not a JSON object');
  const { version, date, sources, agents } = doc;
  if (typeof version !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(version)) fail('"version" must be 1–64 letters, digits, ".", "_" or "-"');
  if (typeof date !== 'string' || !isCalendarDate(date)) fail('"date" must be a calendar date YYYY-MM-DD');
  if (!isObject(sources)) return fail('"sources" must be an object of source id → {url, title}');
  for (const [id, s] of Object.entries(sources)) {
    if (!isObject(s) || typeof s.url !== 'string' || !/^https?:\/\/\S+$/.test(s.url)) fail(`sources.${id}: needs an http(s) "url"`);
  }
  if (!Array.isArray(agents) || agents.length === 0) return fail('"agents" must be a non-empty array');
  if (agents.length > MAX_CATALOGUE_AGENTS) fail(`"agents" has ${agents.length} entries; at most ${MAX_CATALOGUE_AGENTS}`);
  const seen = new Map<string, number>();
  const out: CatalogueAgent[] = agents.map((a: unknown, i: number) => {
    const at = `agents[${i}]`;
    if (!isObject(a)) return fail(`${at}: not an object`);
    const { token, operator, purpose } = a;
    if (typeof token !== 'string' || !isValidProductToken(token)) {
      // RFC 9309 §2.2.1: a crawler's product token is letters, `_` and `-`; a group's `AI2Bot`
      // names the token `ai`, so an entry with digits could never be matched by its own group.
      fail(`${at}: token ${JSON.stringify(token)} is not a product token (RFC 9309 §2.2.1: letters, "_" and "-" only)`);
    }
    const key = (token as string).toLowerCase();
    if (seen.has(key)) fail(`${at}: token ${JSON.stringify(token)} is also agents[${seen.get(key)}] (tokens compare case-insensitively)`);
    seen.set(key, i);
    if (typeof operator !== 'string' || operator.trim() === '' || operator.length > 200) fail(`${at}: "operator" must be a non-empty string of at most 200 characters`);
    if (typeof purpose !== 'string' || !/^[a-z][a-z_-]{0,31}$/.test(purpose)) fail(`${at}: "purpose" must be a lower-case word (training, search, assistant, agent, data, ads, …)`);
    const src = a.sources;
    if (!Array.isArray(src) || src.length === 0) return fail(`${at}: "sources" must list at least one source id`);
    for (const s of src) if (typeof s !== 'string' || !Object.hasOwn(sources, s)) fail(`${at}: source ${JSON.stringify(s)} is not in "sources"`);
    return { token: token as string, operator: (operator as string).trim(), purpose: purpose as string, sources: src as string[], ...whatItIs(a, at, sources, fail) };
  });
  const sourceUrls = Object.fromEntries(Object.entries(sources).map(([id, x]) => [id, (x as { url: string }).url]));
  return { version: version as string, date: date as string, sha256: createHash('sha256').update(bytes).digest('hex'), file, agents: out, sourceUrls };
}

/** An entry's optional `fetches_pages`, `controls` and the `controls_source` that must back them. */
function whatItIs(a: Record<string, unknown>, at: string, sources: Record<string, unknown>, fail: (msg: string) => never): Pick<CatalogueAgent, 'fetchesPages' | 'controls' | 'controlsSource'> {
  const { fetches_pages: fetches, controls, controls_source: source } = a;
  if (fetches === undefined && controls === undefined) return { fetchesPages: null, controls: null, controlsSource: null };
  if (fetches !== undefined && typeof fetches !== 'boolean') fail(`${at}: "fetches_pages" must be true or false`);
  if (controls !== undefined && (!Array.isArray(controls) || controls.some((c) => typeof c !== 'string' || !AGENT_CONTROLS.includes(c)))) {
    fail(`${at}: "controls" must list some of ${AGENT_CONTROLS.join(', ')}`);
  }
  if (typeof source !== 'string' || !Object.hasOwn(sources, source)) fail(`${at}: "fetches_pages" and "controls" need a "controls_source" listed in "sources"`);
  return { fetchesPages: (fetches as boolean | undefined) ?? null, controls: (controls as string[] | undefined) ?? null, controlsSource: source as string };
}

/** What the run manifest records of the catalogue used. */
export function catalogueManifest(c: AgentsCatalogue): { version: string; date: string; sha256: string; agents: number; file: string | null } {
  return { version: c.version, date: c.date, sha256: c.sha256, agents: c.agents.length, file: c.file };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
