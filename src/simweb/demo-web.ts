/**
 * The simulated web the demo crawls (`npm run demo`), and the sample lists in data-samples/demo/
 * that name its sites. The lists are generated from these options by
 * `npx tsx scripts/make-demo-lists.ts`; test/demo.test.ts fails when they drift apart.
 */
import type { SimwebOptions } from './index.js';

export const DEMO_WEB: SimwebOptions = {
  hosts: 400,
  apps: 40,
  seed: 'adsnap-demo',
  latency: { minMs: 5, maxMs: 120 },
  hostile: true,
};

/** Every fifth synthetic app is listed with its developer URL, as bulk app data often is (no store visit). */
export const DEMO_DEVELOPER_URL_EVERY = 5;
