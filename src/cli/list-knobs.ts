/**
 * The named-list options of `adsnap crawl` (`--domains PROVIDER:SELECTOR`): `--list-provider-url
 * PROVIDER=URL` and `--list-cache DIR`, also keys of `--config FILE` (flags win; URLs merge per
 * provider), and the resolution of the list into a cached file before the crawl starts.
 */
import path from 'node:path';
import { ListConfigError, ListSelectorError, LIST_PROVIDERS, resolveNamedList, type ListProvider, type NamedList } from '../sources/named-lists/index.js';
import { UsageError } from './usage-error.js';

export const LIST_CONFIG_KEYS = ['list-provider-url', 'list-cache'] as const;

export interface ListKnobs {
  providerUrls: Partial<Record<ListProvider, string>>;
  cacheDir: string | null;
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export function resolveListKnobs(values: Values, file: Record<string, unknown>, configFile: string | null): ListKnobs {
  const providerUrls: Partial<Record<ListProvider, string>> = {};
  const set = (where: string, provider: string, url: unknown) => {
    if (!(LIST_PROVIDERS as readonly string[]).includes(provider)) throw new UsageError(`${where}: unknown list provider ${JSON.stringify(provider)} (known: ${LIST_PROVIDERS.join(', ')})`);
    if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url) || !URL.canParse(url)) throw new UsageError(`${where}: ${JSON.stringify(url)} is not an http(s) URL`);
    providerUrls[provider as ListProvider] = url;
  };
  const inFile = `--config ${configFile}: list-provider-url`;
  const fromFile = file['list-provider-url'];
  if (fromFile !== undefined) {
    if (fromFile === null || typeof fromFile !== 'object' || Array.isArray(fromFile)) throw new UsageError(`${inFile} must be an object of provider → base URL`);
    for (const [k, v] of Object.entries(fromFile)) set(inFile, k, v);
  }
  for (const spec of (values['list-provider-url'] as string[] | undefined) ?? []) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new UsageError(`--list-provider-url must be PROVIDER=URL, got ${JSON.stringify(spec)}`);
    set('--list-provider-url', spec.slice(0, eq), spec.slice(eq + 1));
  }
  let cacheDir = typeof values['list-cache'] === 'string' ? values['list-cache'] : null;
  const c = file['list-cache'];
  if (cacheDir === null && c !== undefined) {
    if (typeof c !== 'string' || c.trim() === '') throw new UsageError(`--config ${configFile}: list-cache must be a directory path (relative to the config file)`);
    cacheDir = path.resolve(path.dirname(configFile!), c);
  }
  return { providerUrls, cacheDir };
}

/**
 * `--domains PROVIDER:SELECTOR` resolved to a cached file (a request only when the cache lacks
 * it). A selector or set-up error is a usage error (exit 2, nothing created); a provider that
 * fails is a failed run (exit 1).
 */
export async function resolveDomainsList(spec: string, knobs: ListKnobs, o: { outDir: string; day: string; userAgent: string }): Promise<NamedList> {
  try {
    return await resolveNamedList(spec, { cacheDir: knobs.cacheDir ?? path.join(o.outDir, '_lists'), day: o.day, userAgent: o.userAgent, providerUrls: knobs.providerUrls });
  } catch (err) {
    if (err instanceof ListSelectorError || err instanceof ListConfigError) throw new UsageError(`--domains ${spec}: ${err.message}`);
    throw err;
  }
}
