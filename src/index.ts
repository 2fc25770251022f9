// adsnap's library entry point: each stage's public API.
export { tables, tableNames, type Row, type TableName, type TableSchema, type Column } from '../schemas/tables.js';
export { version, defaultUserAgent } from './util/version.js';
export { productToken } from './util/product-token.js';
export { Fetcher, resolveFetchConfig, loadCaCerts, parseConnectTo, type FetchConfig, type FetchOptions, type FetchKind, type FetchRequest, type FetchOutcome, type FetchRow } from './fetch/index.js';
export { AdsTxtParser, parseAdsTxt, adsTxtIssueCodes, type AdsRecord, type AdsVariable, type ParseIssue, type AdsTxtSummary } from './parse/adstxt/index.js';
export { RobotsParser, parseRobotsTxt, RobotsMatcher, robotsAccess, robotsPolicy, checkPolicy, verdicts, DEFAULT_VERDICT_AGENTS, DEFAULT_VERDICT_PATHS } from './parse/robots/index.js';
export { SellersJsonParser, parseSellersJson } from './parse/sellers/index.js';
export { parseStorePage } from './parse/store/index.js';
export { appAdsTxtHosts, appAdsTxtUrls } from './resolve/developer-url.js';
export { adsFileStatus, statusFromFetch, type FileStatus } from './resolve/file-status.js';
export { readDomainList, type TargetInput } from './sources/domain-list.js';
export { readAppList, recognizeStoreUrl, type AppInput } from './sources/apps.js';
export { openSnapshotWriter, writeRunManifest, type SnapshotWriter } from './sink/index.js';
export { crawl, type CrawlOptions, type CrawlResult } from '../pipelines/crawl.js';
export { reparse } from '../pipelines/reparse.js';
