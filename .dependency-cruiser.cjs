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
/** A forbidden dependency: every rule is an error, so a violation fails `npm test`. */
const rule = (name, comment, from, to, extra = {}) => ({ name, comment, severity: 'error', from, to, ...extra });

/** The stages, in the order data flows through them (docs/design.md). */
const STAGES = ['sources', 'fetch', 'parse', 'resolve', 'tables', 'sink', 'store'];
const LOWER = `^(src/(${STAGES.join('|')}|text|util)|schemas)/`;

module.exports = {
  forbidden: [
    rule('no-folder-cycles', 'Folders form a directed graph: no folder reaches itself through another.', {}, { circular: true }, { scope: 'folder' }),
    // Type-only imports count too: a type cycle loads nothing, but it ties two modules' shapes to
    // each other as tightly as a value cycle does, and one value import later makes it real.
    rule('no-module-cycles', 'No module imports itself through others, types included (an import order that works by luck).', { path: '^(src|pipelines|schemas)/' }, {
      circular: true,
    }),
    rule('parse-knows-no-network', 'Parsers read bytes and emit events: the fetch layer calls them, they never import it.', { path: '^src/parse/' }, {
      path: '^src/(fetch|sink|store|tables|sql|report|cli|simweb)/|^pipelines/',
    }),
    rule('lower-layers-stay-below', 'The stages import no wiring (pipelines, cli), no SQL or report layer, no simulated web.', { path: LOWER }, {
      path: '^(pipelines|src/(cli|sql|report|simweb))/',
    }),
    // The stages' direction (docs/design.md, "Layers"): a stage reads what the stages before it
    // give (its types and functions), never one after it; schemas/, src/text/ and src/util/ are
    // below every stage.
    ...STAGES.slice(0, -1).map((stage, i) =>
      rule('stages-import-only-earlier-stages', `A stage imports no later stage: ${stage}/ reads ${STAGES.slice(0, i).join(', ') || 'no stage'} (and schemas, text, util).`, { path: `^src/${stage}/` }, {
        path: `^src/(${STAGES.slice(i + 1).join('|')})/`,
      }),
    ),
    rule('schemas-text-util-below-the-stages', 'schemas/, src/text/ and src/util/ import no stage: every stage may use them.', { path: '^(schemas|src/(text|util))/' }, {
      path: `^src/(${STAGES.join('|')})/`,
    }),
    rule('sql-below-report-and-cli', 'src/sql/ (a snapshot opened with its views; results printed) serves the report and the CLI.', { path: '^src/sql/' }, {
      path: '^(pipelines|src/(cli|report|simweb))/',
    }),
    rule('report-not-above-cli-or-pipelines', 'The report reads snapshots through src/sql/; it imports no CLI and no crawl wiring.', { path: '^src/report/' }, {
      path: '^(pipelines|src/(cli|simweb))/',
    }),
    // The crawl maps no DuckDB at start: the SQL and report layer only by import(), when a commit or reparse needs it ...
    rule('pipelines-reach-sql-and-report-lazily', 'Pipelines load the SQL and report layer only by import().', { path: '^pipelines/' }, {
      path: '^src/(sql|report)/',
      preCompilationOnly: false,
      dynamic: false,
    }),
    // ... and through one narrow entry: the derived tables' writer and the snapshot opener.
    rule('pipelines-one-narrow-entry', 'The two modules pipelines may load from the SQL and report layer.', { path: '^pipelines/' }, {
      path: '^src/(sql|report)/',
      pathNot: '^src/(sql/snapshot-db|report/derived)\\.ts$',
    }),
    rule('duckdb-only-lazily-below-sql', 'DuckDB (native, ~55 MB mapped) at module load only in src/sql/, src/report/ and the CLI commands; elsewhere by import().', {
      pathNot: '^(src/(sql|report|cli/commands)|test|bench|scripts)/',
    }, {
      path: '(^|/)node_modules/@duckdb/',
      preCompilationOnly: false,
      dynamic: false,
    }),
    rule('product-code-no-simweb', 'The simulated web is a fixture and its own export (adsnap/simweb): only the simweb and demo commands import it.', {
      path: '^(src|pipelines|schemas)/',
      pathNot: '^src/(simweb/|cli/commands/(simweb|demo)\\.ts$)',
    }, { path: '^src/simweb/' }),
    // zstd.ts takes hyparquet-writer's compressor type from inside the package (pinned; docs/design.md).
    rule('not-to-unresolvable', 'Every import resolves.', {}, { couldNotResolve: true, pathNot: '^hyparquet-writer/src/types\\.js$' }),
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
