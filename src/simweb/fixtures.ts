/**
 * Hand-written fixture hosts: `DIR/<host>/<path>` files served as-is, and an optional
 * `DIR/<host>/_routes.json` for what files cannot say (status, Content-Type, redirects,
 * transport, TLS, hostile bodies). Read once at start (fixtures are small); a fixture host
 * shadows a synthetic host of the same name for the paths it defines.
 *
 * _routes.json:
 *   { "about": "what this host tests",
 *     "transport": "both" | "redirect_to_https" | "https_only" | "http_only",   (default "both")
 *     "tls": "ok" | "wrong_name" | "expired" | "abort",                          (default "ok")
 *     "expect": { "ads.txt": { "status": "ok", "records": 3 } },                 (copied to describe())
 *     "routes": { "/ads.txt": { "status": 200, "contentType": "text/html", "file": "page.html" },
 *                 "/old": { "status": 301, "location": "https://example.com/ads.txt" },
 *                 "/inline": { "status": 500, "body": "oops" },
 *                 "/bomb": { "hostile": "gzip-bomb" }, "/gone": { "drop": true } } }
 * Route keys match the path with its query first, then the path alone.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { toAsciiHost } from '../util/domain.js';
import { HOSTILE_KINDS, type HostileKind } from './names.js';
import { HTML, JSON_TYPE, TEXT, body, type ExpectedFile, type HostBehaviour, type Route, type TlsBehaviour, type Transport } from './route.js';

export interface FixtureHost {
  host: string;
  about: string | null;
  transport: Transport;
  tls: TlsBehaviour;
  expect: Partial<Record<'ads.txt' | 'app-ads.txt' | 'robots.txt' | 'sellers.json', ExpectedFile>>;
  routes: Map<string, Route>;
}

const TRANSPORTS: readonly Transport[] = ['redirect_to_https', 'both', 'https_only', 'http_only'];
const TLS: readonly TlsBehaviour[] = ['ok', 'wrong_name', 'expired', 'abort'];

function contentTypeFor(file: string): string {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.json') return JSON_TYPE;
  if (ext === '.html' || ext === '.htm') return HTML;
  return TEXT;
}

async function listFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(dir, r)));
    else if (e.isFile() && r !== '_routes.json') out.push(r);
  }
  return out;
}

interface RouteJson { status?: number; contentType?: string | null; file?: string; body?: string; location?: string; hostile?: string; drop?: boolean; headers?: Record<string, string> }
interface RoutesJson { about?: string; transport?: string; tls?: string; expect?: FixtureHost['expect']; routes?: Record<string, RouteJson> }

function fail(where: string, msg: string): never {
  throw new Error(`simweb fixtures: ${where}: ${msg}`);
}

async function routeFrom(hostDir: string, where: string, r: RouteJson): Promise<Route> {
  if (r.drop) return { type: 'drop' };
  if (r.hostile !== undefined) {
    if (!(HOSTILE_KINDS as readonly string[]).includes(r.hostile)) fail(where, `unknown hostile kind ${JSON.stringify(r.hostile)}`);
    return { type: 'hostile', kind: r.hostile as HostileKind };
  }
  const status = r.status ?? 200;
  if (!Number.isInteger(status) || status < 100 || status > 599) fail(where, `bad status ${status}`);
  if (r.location !== undefined) return { type: 'redirect', status, location: r.location };
  const bytes = r.file !== undefined ? await readFile(path.join(hostDir, r.file)) : Buffer.from(r.body ?? '', 'utf8');
  const contentType = r.contentType === undefined ? (r.file ? contentTypeFor(r.file) : TEXT) : r.contentType;
  return body(status, contentType, bytes, r.headers);
}

async function loadHost(dir: string, name: string): Promise<FixtureHost> {
  const hostDir = path.join(dir, name);
  const host = toAsciiHost(name);
  const routes = new Map<string, Route>();
  for (const f of await listFiles(hostDir)) routes.set(`/${f}`, body(200, contentTypeFor(f), await readFile(path.join(hostDir, f))));
  let cfg: RoutesJson = {};
  try {
    cfg = JSON.parse(await readFile(path.join(hostDir, '_routes.json'), 'utf8')) as RoutesJson;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') fail(`${name}/_routes.json`, (err as Error).message);
  }
  const transport = (cfg.transport ?? 'both') as Transport;
  const tls = (cfg.tls ?? (transport === 'http_only' ? 'abort' : 'ok')) as TlsBehaviour;
  if (!TRANSPORTS.includes(transport)) fail(name, `bad transport ${JSON.stringify(cfg.transport)}`);
  if (!TLS.includes(tls)) fail(name, `bad tls ${JSON.stringify(cfg.tls)}`);
  for (const [p, r] of Object.entries(cfg.routes ?? {})) {
    if (!p.startsWith('/')) fail(`${name} route ${p}`, 'route keys start with /');
    routes.set(p, await routeFrom(hostDir, `${name} route ${p}`, r));
  }
  return { host, about: cfg.about ?? null, transport, tls, expect: cfg.expect ?? {}, routes };
}

/** Loads every `DIR/<host>/` directory. Entries that are not directories (README.md) are skipped. */
export async function loadFixtures(dir: string): Promise<Map<string, FixtureHost>> {
  const hosts = new Map<string, FixtureHost>();
  for (const e of await readdir(dir)) {
    if (!(await stat(path.join(dir, e))).isDirectory()) continue;
    const h = await loadHost(dir, e);
    hosts.set(h.host, h);
  }
  return hosts;
}

export function fixtureBehaviour(f: FixtureHost, latencyMs: number): HostBehaviour {
  return { transport: f.transport, tls: f.tls, latencyMs };
}

/** The fixture's answer for a path, or undefined when the fixture does not define it. */
export function fixtureRoute(f: FixtureHost, pathAndQuery: string): Route | undefined {
  return f.routes.get(pathAndQuery) ?? f.routes.get(pathAndQuery.split('?')[0]!);
}
