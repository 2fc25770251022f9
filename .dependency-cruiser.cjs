/**
 * adsnap's layers as rules (docs/design.md, "Layers"), checked by dependency-cruiser in `npm test`
 * (test/layers.test.ts). Data flows one way:
 *
 *   sources → fetch → parse → resolve → tables → sink → store      (text, util: below all)
 *
 * with pipelines/ and src/cli/ wiring them, src/sql/ (DuckDB over snapshots, the views) and
 * src/report/ above the snapshot, and src/simweb/ the simulated web, which no product layer uses.
 * Paths are regular expressions over repository-relative paths.
 */
const LOWER = '^(src/(sources|fetch|parse|resolve|tables|sink|store|text|util)|schemas)/';

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'Folders form a directed graph: no folder reaches itself through another.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      comment: 'No module imports itself through others (an import order that only works by luck).',
      severity: 'error',
      from: { path: '^(src|pipelines|schemas)/' },
      // A cycle of type-only imports is erased by the compiler and loads nothing.
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'parse-knows-no-network',
      comment: 'Parsers read bytes and emit events; the fetch layer is their caller, never their import.',
      severity: 'error',
      from: { path: '^src/parse/' },
      to: { path: '^src/(fetch|sink|store|tables|sql|report|cli|simweb)/|^pipelines/' },
    },
    {
      name: 'lower-layers-stay-below',
      comment: 'The stages import no wiring (pipelines, cli), no SQL or report layer and no simulated web.',
      severity: 'error',
      from: { path: LOWER },
      to: { path: '^(pipelines|src/(cli|sql|report|simweb))/' },
    },
    {
      name: 'sql-below-report-and-cli',
      comment: 'src/sql/ (open a snapshot with its views, print results) serves the report and the CLI; it imports neither.',
      severity: 'error',
      from: { path: '^src/sql/' },
      to: { path: '^(pipelines|src/(cli|report|simweb))/' },
    },
    {
      name: 'report-not-above-cli-or-pipelines',
      comment: 'The report reads snapshots through src/sql/; it imports no CLI and no crawl wiring.',
      severity: 'error',
      from: { path: '^src/report/' },
      to: { path: '^(pipelines|src/(cli|simweb))/' },
    },
    {
      name: 'pipelines-reach-sql-and-report-lazily',
      comment:
        'The crawl maps no DuckDB at start: pipelines reach the SQL and report layer only through the night ' +
        'summary and the snapshot opener, and only by import() when a commit or reparse needs them.',
      severity: 'error',
      from: { path: '^pipelines/' },
      to: { path: '^src/(sql|report)/', preCompilationOnly: false, dynamic: false },
    },
    {
      name: 'pipelines-one-narrow-entry',
      comment: 'The two modules pipelines may load from the SQL and report layer.',
      severity: 'error',
      from: { path: '^pipelines/' },
      to: { path: '^src/(sql|report)/', pathNot: '^src/(sql/snapshot-db|report/night-summary)\\.ts$' },
    },
    {
      name: 'duckdb-only-lazily-below-sql',
      comment: 'DuckDB (native, ~55 MB mapped) is imported at module load only by src/sql/, src/report/ and the CLI commands that use them; elsewhere only by import().',
      severity: 'error',
      from: { pathNot: '^(src/(sql|report|cli/commands)|test|bench|scripts)/' },
      to: { path: '(^|/)node_modules/@duckdb/', preCompilationOnly: false, dynamic: false },
    },
    {
      name: 'product-code-no-simweb',
      comment: 'The simulated web is a test fixture and its own export (adsnap/simweb); only the CLI command serving it imports it.',
      severity: 'error',
      from: { path: '^(src|pipelines|schemas)/', pathNot: '^src/(simweb/|cli/commands/(simweb|demo)\\.ts$)' },
      to: { path: '^src/simweb/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      // zstd.ts takes hyparquet-writer's compressor type from inside the package (pinned; docs/design.md).
      to: { couldNotResolve: true, pathNot: '^hyparquet-writer/src/types\\.js$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: 'specify',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
