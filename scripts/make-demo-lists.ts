/**
 * Writes the demo's sample lists (data-samples/demo/top-sites.csv and apps.csv) from the demo's
 * simulated web: the synthetic sites in rank order, then the hand-written fixture roots; the
 * synthetic apps, then the fixture apps. `npx tsx scripts/make-demo-lists.ts`
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { appSpec } from '../src/simweb/apps.js';
import { startSimweb } from '../src/simweb/index.js';
import { seedOf } from '../src/simweb/prng.js';
import { DEMO_DEVELOPER_URL_EVERY, DEMO_WEB } from '../src/simweb/demo-web.js';
import { packageRoot } from '../src/util/package-root.js';

export async function renderDemoLists(): Promise<{ sites: string; apps: string }> {
  const root = packageRoot();
  const fixtures = path.join(root, 'data-samples', 'simweb-fixtures');
  const web = await startSimweb({ ...DEMO_WEB, fixturesDir: fixtures });
  try {
    const fixtureDomains = (await readFile(path.join(fixtures, 'domains.txt'), 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    const fixtureApps = (await readFile(path.join(fixtures, 'apps.txt'), 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    const sites = [...web.domains(), ...fixtureDomains].map((d, i) => `${i + 1},${d}`);
    const apps = ['store_url,developer_url'];
    [...web.apps()].forEach((url, i) => {
      const dev = i % DEMO_DEVELOPER_URL_EVERY === DEMO_DEVELOPER_URL_EVERY - 1 ? appSpec(seedOf(DEMO_WEB.seed), i).developerUrl : '';
      apps.push(`${url},${dev}`);
    });
    for (const url of fixtureApps) apps.push(`${url},`);
    return { sites: sites.join('\n') + '\n', apps: apps.join('\n') + '\n' };
  } finally {
    await web.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const { sites, apps } = await renderDemoLists();
  const dir = path.join(packageRoot(), 'data-samples', 'demo');
  await writeFile(path.join(dir, 'top-sites.csv'), sites);
  await writeFile(path.join(dir, 'apps.csv'), apps);
  console.log(`wrote ${sites.split('\n').length - 1} sites and ${apps.split('\n').length - 2} apps to ${path.relative(process.cwd(), dir)}`);
}
