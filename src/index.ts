// adsnap's library entry point. Each stage's public API is re-exported here as it lands.
export { tables, tableNames, type Row, type TableName, type TableSchema, type Column } from '../schemas/tables.js';
export { version, defaultUserAgent, productToken } from './version.js';
export { Fetcher, resolveFetchConfig, loadCaCerts, parseConnectTo, adsFileStatus, robotsAccess, type FetchConfig, type FetchOptions, type FetchKind, type FetchRequest, type FetchOutcome, type FetchRow } from './fetch/index.js';
