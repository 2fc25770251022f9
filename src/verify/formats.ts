/** The formats `adsnap verify` writes (docs/guide/verify.md): without DuckDB, so the command can check its flags before loading it. */
export const VERIFY_FORMATS = ['jsonl', 'csv', 'parquet'] as const;
export type VerifyFormat = (typeof VERIFY_FORMATS)[number];
